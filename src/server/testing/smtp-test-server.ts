import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

/** What a test SMTP server received: the SMTP envelope and the message as parsed MIME. */
export type ReceivedMail = {
  envelopeFrom: string;
  envelopeTo: string[];
  user?: string;
  headers: Record<string, string>;
  text?: string;
  html?: string;
};

export type TestSmtpServer = { url: string; port: number; received: ReceivedMail[]; close(): Promise<void> };

/**
 * A real SMTP server on a loopback port for tests (the `smtp-server` package): requires AUTH,
 * rejects recipients whose local part starts with "reject" (550) or "defer" (451).
 */
export async function startTestSmtpServer(opts: { user?: string; pass?: string } = {}): Promise<TestSmtpServer> {
  const user = opts.user ?? "mailer";
  const pass = opts.pass ?? "s3cret-pass";
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: false,
    allowInsecureAuth: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === user && auth.password === pass) cb(null, { user });
      else cb(Object.assign(new Error("Invalid username or password"), { responseCode: 535 }));
    },
    onRcptTo(address, _session, cb) {
      if (address.address.startsWith("reject"))
        return cb(Object.assign(new Error(`<${address.address}>: Recipient rejected`), { responseCode: 550 }));
      if (address.address.startsWith("defer"))
        return cb(Object.assign(new Error(`<${address.address}>: Try later`), { responseCode: 451 }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const from = session.envelope.mailFrom;
        received.push({
          envelopeFrom: from ? from.address : "",
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === "string" ? session.user : undefined,
          ...parseMime(Buffer.concat(chunks).toString("utf8")),
        });
        cb();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://${user}:${encodeURIComponent(pass)}@127.0.0.1:${port}`,
    port,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

type Part = { headers: Record<string, string>; body: string };

function splitPart(raw: string): Part {
  const at = raw.indexOf("\r\n\r\n");
  const head = at < 0 ? raw : raw.slice(0, at);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const i = line.indexOf(":");
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = decodeWords(line.slice(i + 1).trim());
  }
  return { headers, body: at < 0 ? "" : raw.slice(at + 4) };
}

function decodeBody(part: Part): string {
  const cte = (part.headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  if (cte === "base64") return Buffer.from(part.body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (cte === "quoted-printable") {
    const soft = part.body.replace(/=\r\n/g, "");
    return Buffer.from(
      soft.replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
      "latin1",
    ).toString("utf8");
  }
  return part.body;
}

function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_, enc: string, data: string) =>
    enc.toUpperCase() === "B"
      ? Buffer.from(data, "base64").toString("utf8")
      : Buffer.from(
          data.replace(/_/g, " ").replace(/=([0-9A-F]{2})/gi, (__, h: string) => String.fromCharCode(parseInt(h, 16))),
          "latin1",
        ).toString("utf8"),
  );
}

/** Just enough MIME for what nodemailer sends: a text part, or multipart/alternative text + html. */
function parseMime(raw: string): { headers: Record<string, string>; text?: string; html?: string } {
  const top = splitPart(raw);
  const type = top.headers["content-type"] ?? "text/plain";
  const boundary = type.match(/boundary="?([^";]+)"?/)?.[1];
  const parts = boundary
    ? top.body
        .split(`--${boundary}`)
        .slice(1, -1)
        .map((p) => splitPart(p.replace(/^\r\n/, "").replace(/\r\n$/, "")))
    : [top];
  const find = (mime: string) => {
    const p = parts.find((x) => (x.headers["content-type"] ?? "text/plain").startsWith(mime));
    return p ? decodeBody(p).replace(/\r\n$/, "") : undefined;
  };
  return { headers: top.headers, text: find("text/plain"), html: find("text/html") };
}
