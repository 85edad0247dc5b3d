/**
 * Errors in words: the one mapping from a failed console call (the tRPC error with the server's
 * zod issues, or its AppError code and details) and from the forms' own checks to a sentence per
 * field. Forms name their fields once (`Fields`); a field they did not name is worded from its
 * path. Browser code: imports nothing of the server.
 */

/** One rule a value broke, as the server sends it (src/server/api/trpc.ts) or a form's own check makes it. */
export type Issue = {
  path: string[];
  code: string;
  message?: string;
  origin?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
};

export type FieldSpec = {
  /** The field as a sentence names it: "key name", "email", "start". */
  label: string;
  /** Words for a format or custom rule of this field, given the offending value. */
  words?: (value: unknown, issue: Issue) => string | undefined;
};

/** Keyed by the field's path without array indexes ("cidrs", "body.reason"). */
export type Fields = Record<string, FieldSpec>;

export type Described = {
  /** Every problem in one paragraph, for an alert or a toast. */
  message: string;
  /** One or more sentences per field, keyed like `Fields`. */
  fields: Record<string, string>;
};

const NETWORK = "The service could not be reached. Check your connection and try again; a repeated submission is never applied twice.";
const UNKNOWN = "Something went wrong. Try again.";

const fieldKey = (path: string[]) => path.filter((p) => !/^\d+$/.test(p)).join(".");

function humanise(path: string[]): string {
  const last = [...path].reverse().find((p) => !/^\d+$/.test(p)) ?? "value";
  return last.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

const article = (word: string) => (/^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`);

function valueAt(input: unknown, path: string[]): unknown {
  let v: unknown = input;
  for (const p of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

function sentence(text: string): string {
  const t = text.trim();
  if (!t) return t;
  const s = t[0]!.toUpperCase() + t.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}

/** The words for one issue. */
export function issueText(issue: Issue, spec: FieldSpec | undefined, value: unknown): string {
  const custom = spec?.words?.(value, issue);
  if (custom) return custom;
  const label = spec?.label ?? humanise(issue.path);
  const min = issue.minimum;
  const max = issue.maximum;
  switch (issue.code) {
    case "too_small":
      if (issue.origin === "array" || issue.origin === "set")
        return min === 1 ? `Choose at least one ${label}.` : `Choose at least ${min} ${label}.`;
      if (issue.origin === "string") return min === 1 ? `Enter the ${label}.` : `The ${label} needs at least ${min} characters.`;
      return `The ${label} must be at least ${min}.`;
    case "too_big":
      if (issue.origin === "array" || issue.origin === "set") return `Give at most ${max} ${label}.`;
      if (issue.origin === "string") return `The ${label} can be at most ${max} characters.`;
      return `The ${label} can be at most ${max}.`;
    case "invalid_format":
      if (issue.format === "email") return "Enter an email address such as name@example.com.";
      if (issue.format === "datetime" || issue.format === "date") return `Pick ${article(label)} date and time.`;
      if (issue.format === "url") return "Enter a URL such as https://example.com/hooks.";
      return `The ${label} is not in the expected form.`;
    case "invalid_type":
      return value === undefined || value === null || value === "" ? `Enter the ${label}.` : `The ${label} is not valid.`;
    case "invalid_value":
      return `Pick ${article(label)} from the list.`;
    case "unrecognized_keys":
      return "This page sent something the service does not know; reload the page and try again.";
    default:
      return issue.message ? sentence(issue.message) : `The ${label} is not valid.`;
  }
}

/** Words for issues, per field and as one paragraph. */
export function describeIssues(issues: Issue[], opts: { fields?: Fields; input?: unknown } = {}): Described {
  const fields: Record<string, string> = {};
  for (const issue of issues) {
    const key = fieldKey(issue.path);
    const text = issueText(issue, opts.fields?.[key], valueAt(opts.input, issue.path));
    fields[key] = fields[key] ? `${fields[key]} ${text}` : text;
  }
  return { message: Object.values(fields).join(" "), fields };
}

type ErrorData = {
  code?: string;
  httpStatus?: number;
  appCode?: string;
  details?: Record<string, unknown> | null;
  issues?: Issue[];
};

function isIssue(x: unknown): x is Issue {
  return !!x && typeof x === "object" && Array.isArray((x as Issue).path) && typeof (x as Issue).code === "string";
}

/**
 * Words for a failed console call: per field for input errors, the envelope's message otherwise
 * (written for people by the service), with when to retry for a 429.
 */
export function describeError(err: unknown, opts: { fields?: Fields; input?: unknown } = {}): Described {
  if (!(err instanceof Error)) return { message: UNKNOWN, fields: {} };
  const data = (err as { data?: ErrorData }).data;
  // A TRPCClientError with no data never got an answer from the service.
  if (!data) return { message: err.name === "TRPCClientError" ? NETWORK : err.message || UNKNOWN, fields: {} };
  const issues = Array.isArray(data.issues) ? data.issues.filter(isIssue) : [];
  if (issues.length) return describeIssues(issues, opts);
  // AppError VALIDATION_ERROR names fields as "where.a.b" strings.
  const detailIssues = data.details?.issues;
  if (Array.isArray(detailIssues) && detailIssues.length) {
    const mapped = detailIssues.flatMap((i: { path?: unknown; message?: unknown }) =>
      typeof i.path === "string" ? [{ path: i.path.split(".").slice(1), code: "custom", message: String(i.message ?? "") }] : [],
    );
    if (mapped.length) return describeIssues(mapped, opts);
  }
  if (data.code === "TOO_MANY_REQUESTS") {
    const after = Number(data.details?.retryAfterSec);
    const when = Number.isFinite(after) && after > 0 ? retryIn(after) : "in a moment";
    return { message: `${sentence(err.message)} Try again ${when}.`, fields: {} };
  }
  if (data.code === "INTERNAL_SERVER_ERROR") return { message: sentence(err.message || UNKNOWN), fields: {} };
  return { message: sentence(err.message || UNKNOWN), fields: {} };
}

function retryIn(sec: number): string {
  if (sec < 60) return `in ${Math.ceil(sec)} second${Math.ceil(sec) === 1 ? "" : "s"}`;
  const min = Math.ceil(sec / 60);
  return `in ${min} minute${min === 1 ? "" : "s"}`;
}

// The forms' own checks, worded by the same mapping as the server's answers.

/** Length limits of a text the service trims: counted as the service counts. */
export function textIssue(path: string[], value: string, min: number, max: number): Issue | null {
  const n = value.trim().length;
  if (n < min) return { path, code: "too_small", origin: "string", minimum: min };
  if (n > max) return { path, code: "too_big", origin: "string", maximum: max };
  return null;
}

/** A date field left empty or not a date. */
export function dateIssue(path: string[], value: string): Issue | null {
  return /^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value)) ? null : { path, code: "invalid_format", format: "datetime" };
}

export const present = (issues: (Issue | null | undefined)[]): Issue[] => issues.filter((i): i is Issue => !!i);
