"use client";

import { Badge } from "@/components/ui/badge";
import { Confirm } from "@/components/ui/dialog";
import { SecretOnce } from "@/components/ui/secret-once";
import { Section } from "@/components/ui/section";
import { useSubmission } from "@/components/ui/use-submission";
import { useTRPCClient } from "@/trpc/react";
import { useSaved } from "./use-saved";

/** Request signing on, off, or a new secret (shown once). */
export function Signing({ enabled }: { enabled: boolean }) {
  const client = useTRPCClient();
  const saved = useSaved();
  const enable = useSubmission(client.tenant.enableSigning, {
    onSuccess: saved.ok("Signing is on"),
    onError: saved.fail("Signing was not enabled"),
  });
  const disable = useSubmission(client.tenant.disableSigning, {
    onSuccess: saved.ok("Signing is off"),
    onError: saved.fail("Signing was not disabled"),
  });
  return (
    <Section
      title="Request signing"
      id="signing-h"
      description="When on, every /v1 call must carry X-BI-Timestamp and an HMAC X-BI-Signature made with the signing secret."
    >
      <p className="mb-3 text-sm">
        Status: <Badge tone={enabled ? "green" : "slate"}>{enabled ? "on" : "off"}</Badge>
      </p>
      {/* The secret shown once, while it is the one in force: turning signing off discards it. */}
      {enable.data && enabled && <SecretOnce className="mb-3" secret={enable.data.signingSecret} warning={enable.data.warning} />}
      <div className="flex flex-wrap gap-2">
        <Confirm
          trigger={
            <button type="button" className="btn-primary">
              {enabled ? "Rotate secret" : "Turn signing on"}
            </button>
          }
          title={enabled ? "Rotate the signing secret?" : "Turn request signing on?"}
          description="Unsigned calls, and calls signed with an older secret, answer 401 from the next request. Update your backends right after."
          confirmLabel={enabled ? "Rotate" : "Turn on"}
          onConfirm={() => enable.submit()}
        />
        {enabled && (
          <Confirm
            trigger={
              <button type="button" className="btn-secondary">
                Turn off
              </button>
            }
            title="Turn request signing off?"
            description="Calls are then accepted without a signature, and the secret is discarded."
            confirmLabel="Turn off"
            onConfirm={() => disable.submit()}
          />
        )}
      </div>
    </Section>
  );
}
