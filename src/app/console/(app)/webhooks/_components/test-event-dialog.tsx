"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Modal, ModalActions } from "@/components/ui/dialog";
import { FormError } from "@/components/ui/form-field";
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
  const close = (o: boolean) => {
    if (!o) props.onClose();
  };
  return (
    <Modal
      open
      onOpenChange={close}
      title={send.data ? "Test event queued" : "Send a test event"}
      description={
        send.data
          ? "It is sent, signed and retried like any delivery; follow it in the deliveries below."
          : 'A sample payload of the event, valid against its schema, with "test": true in the signed envelope so your receiver can skip the work.'
      }
    >
      {send.data ? (
        <div className="space-y-4">
          <p className="text-sm">
            Delivery <code className="break-all text-xs">{send.data.id}</code> ({send.data.event})
          </p>
          <div className="flex justify-end">
            <button type="button" className="btn-primary" onClick={() => close(false)}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form
          className="space-y-4 pb-1"
          onSubmit={(e) => {
            e.preventDefault();
            send.submit({ id: props.hook.id, body: { event } });
          }}
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
          <FormError text={send.formError} />
          <ModalActions>
            <button type="button" className="btn-secondary" onClick={() => close(false)}>
              Cancel
            </button>
            <button type="submit" className="btn-primary" disabled={send.isPending}>
              {send.isPending ? "Sending…" : "Send test"}
            </button>
          </ModalActions>
        </form>
      )}
    </Modal>
  );
}
