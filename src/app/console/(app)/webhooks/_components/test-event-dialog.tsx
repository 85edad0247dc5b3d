"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { FormDialog } from "@/components/ui/form-dialog";
import { useSubmission } from "@/components/ui/use-submission";
import { WEBHOOK_EVENTS, type WebhookEventName } from "@/lib/webhook-events";
import { useTRPC, useTRPCClient } from "@/trpc/react";

/** Sends a sample of one catalog event to one endpoint, marked "test": true in the signed envelope. */
export function TestEventDialog(props: { hook: { id: string; url: string }; onClose: () => void }) {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const [event, setEvent] = useState<WebhookEventName>(WEBHOOK_EVENTS[0].name);
  const send = useSubmission(client.webhooks.sendTest, {
    onSuccess: () => void qc.invalidateQueries({ queryKey: trpc.webhooks.deliveries.queryKey() }),
  });
  return (
    <FormDialog
      onOpenChange={(o) => !o && props.onClose()}
      title={send.data ? "Test event queued" : "Send a test event"}
      description={
        send.data
          ? "It is sent, signed and retried like any delivery; follow it in the deliveries below."
          : 'A sample payload of the event, valid against its schema, with "test": true in the signed envelope so your receiver can skip the work.'
      }
      submission={send}
      onSubmit={() => send.submit({ id: props.hook.id, body: { event } })}
      submitLabel="Send test"
      pendingLabel="Sending…"
      done={
        send.data && (
          <p className="text-sm">
            Delivery <code className="break-all text-xs">{send.data.id}</code> ({send.data.event})
          </p>
        )
      }
    >
      <p className="break-all text-sm text-slate-700">{props.hook.url}</p>
      <div>
        <label htmlFor="test-event" className="label">
          Event
        </label>
        <select id="test-event" className="field" value={event} onChange={(e) => setEvent(e.target.value as WebhookEventName)}>
          {WEBHOOK_EVENTS.map((e) => (
            <option key={e.name} value={e.name}>
              {e.name}: {e.firesWhen}
            </option>
          ))}
        </select>
      </div>
    </FormDialog>
  );
}
