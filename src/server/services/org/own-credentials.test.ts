import { describe, expect, it } from "vitest";
import { getDb } from "../../db/client";
import { createTestOrg } from "../../testing/harness";
import { appErrorOf } from "../../testing/rejection";
import { SoftAuthenticator } from "../../testing/webauthn-authenticator";
import { completeConsoleSignIn, resolveConsoleSession } from "./console-auth";
import { relyingParty } from "./console-auth-challenges";
import { completePasskeySignIn, passkeySignInOptions } from "./console-auth-member";
import { startOwnCredentialsSetup } from "./members";
import { acceptInvitationWithPasskey, invitationPasskeyOptions } from "./members-invitations";
import { listOwnCredentials, removeOwnCredential } from "./own-credentials";

// After set-up, a member adds a second passkey and removes one from the Security page, always from
// a session opened with their own sign-in, and can never remove their last way in.

const IP = "203.0.113.31";
const req = { clientIp: IP, correlationId: "t" };
const tokenOf = (url: string) => url.split("/").pop()!;

async function addPasskey(ctx: Parameters<typeof startOwnCredentialsSetup>[0]) {
  const db = await getDb();
  const { url } = await startOwnCredentialsSetup(ctx);
  const authenticator = new SoftAuthenticator(relyingParty().origin);
  const { challengeId, options } = await invitationPasskeyOptions(db, tokenOf(url), IP);
  await acceptInvitationWithPasskey(db, { token: tokenOf(url), challengeId, response: authenticator.register(options) as never }, IP);
  return authenticator;
}

async function signInWith(authenticator: SoftAuthenticator) {
  const db = await getDb();
  const { challengeId, options } = await passkeySignInOptions(db, IP);
  const claims = await completePasskeySignIn(
    db,
    { challengeId, response: authenticator.authenticate(options) as never },
    { clientIp: IP, userAgent: "Vitest" },
  );
  return (await resolveConsoleSession(db, claims, req))!;
}

describe("a member's own sign-in after set-up", () => {
  it("adds a second passkey and removes one, only from an own-credential session, never the last", async () => {
    const db = await getDb();
    const org = await createTestOrg();
    const email = `owner-${process.pid}-${Date.now()}@creds.test`;
    const shared = await completeConsoleSignIn(db, { organizationId: org.orgId, email, password: org.consolePassword }, IP);
    const sharedCtx = (await resolveConsoleSession(db, shared, req))!;
    // The first owner holds nothing of their own yet (and is no member row until set-up).
    expect(await listOwnCredentials(sharedCtx)).toEqual({ passkeys: [], password: false });
    const first = await addPasskey(sharedCtx);

    // The shared password can no longer add or remove anything for this member.
    expect((await appErrorOf(startOwnCredentialsSetup(sharedCtx))).details).toEqual({ reason: "own_credentials_required" });
    const own = await signInWith(first);
    const [only] = (await listOwnCredentials(own)).passkeys;
    expect((await appErrorOf(removeOwnCredential(sharedCtx, { passkeyId: only!.id }))).details).toEqual({
      reason: "own_credentials_required",
    });
    expect((await appErrorOf(removeOwnCredential(own, { passkeyId: only!.id }))).details).toMatchObject({ reason: "last_credential" });

    const second = await addPasskey(own);
    const both = await listOwnCredentials(own);
    expect(both).toMatchObject({ password: false, passkeys: [{ id: only!.id }, { lastUsedAt: null }] });

    expect(await removeOwnCredential(own, { passkeyId: only!.id })).toEqual({ removed: true });
    expect((await listOwnCredentials(own)).passkeys.map((p) => p.id)).toEqual([both.passkeys[1]!.id]);
    // The removed passkey signs nobody in; the second one does.
    expect(await appErrorOf(signInWith(first))).toBeTruthy();
    expect((await signInWith(second)).actor).toMatchObject({ type: "member", email });
    const entry = await db.auditEntry.findFirstOrThrow({ where: { orgId: org.orgId, action: "member.credential_removed" } });
    expect(entry).toMatchObject({ subject: email, data: { kind: "passkey" } });

    // Another member's passkey is not found.
    const stranger = await createTestOrg();
    const strangerCtx = (await resolveConsoleSession(
      db,
      await completeConsoleSignIn(
        db,
        { organizationId: stranger.orgId, email: `x-${Date.now()}@creds.test`, password: stranger.consolePassword },
        IP,
      ),
      req,
    ))!;
    const theirs = await signInWith(await addPasskey(strangerCtx));
    expect((await appErrorOf(removeOwnCredential(theirs, { passkeyId: both.passkeys[1]!.id }))).code).toBe("NOT_FOUND");
  });
});
