export type EmailMessage = { to: string; subject: string; text: string; html?: string };
/** `to` is an E.164 number (+233241234567). */
export type SmsMessage = { to: string; text: string };

export type Sent = { id: string; provider: string };

export type Messaging = {
  sendEmail(msg: EmailMessage & { orgId?: string | null }): Promise<Sent>;
  sendSms(msg: SmsMessage & { orgId?: string | null }): Promise<Sent>;
};

export type EmailChannel = Pick<Messaging, "sendEmail">;
export type SmsChannel = Pick<Messaging, "sendSms">;

/** For log lines: enough to recognise an address, never the whole of it. */
export function maskAddress(to: string): string {
  const at = to.lastIndexOf("@");
  if (at > 0) return `${to.slice(0, 1)}***${to.slice(at)}`;
  if (to.length <= 6) return "***";
  return `${to.slice(0, 4)}***${to.slice(-2)}`;
}
