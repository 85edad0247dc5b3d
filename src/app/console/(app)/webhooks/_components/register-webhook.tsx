"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { CopyButton } from "@/components/ui/copy-button";
import { Modal } from "@/components/ui/dialog";
import { FieldError, FormError } from "@/components/ui/form-field";
import { useSubmission } from "@/components/ui/use-submission";
import { WEBHOOK_EVENT_NAMES, WEBHOOK_EVENTS, type WebhookEventName } from "@/lib/webhook-events";
import { useTRPC, useTRPCClient } from "@/trpc/react";

const HOOK_FIELDS = {
  url: { label: "URL" },
  events: {
    label: "events",
    words: (value: unknown, issue: { code: string }) =>
      typeof value === "string" && issue.code === "invalid_value"
        ? `${value} is not an event the service sends: pick from the list.`
        : undefined,
  },
};
export function RegisterWebhook() {
  const trpc = useTRPC();
  const client = useTRPCClient();
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [url, setUrl] = useState("");
  const [every, setEvery] = useState(true);
  const [picked, setPicked] = useState<WebhookEventName[]>([]);
  const register = useSubmission(client.webhooks.register, {
    fields: HOOK_FIELDS,
    onSuccess: () => void qc.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() }),
  });
  const close = (o: boolean) => {
    setOpen(o);
    if (!o) {
      register.reset();
      setUrl("");
      setEvery(true);
      setPicked([]);
    }
  };
  return (
    <>
      <button type="button" className="btn-primary" onClick={() => setOpen(true)}>
        Register webhook
      </button>
      <Modal
        open={open}
        onOpenChange={close}
        title={register.data ? "Webhook registered" : "Register a webhook"}
        description={
          register.data ? register.data.warning : "An HTTPS endpoint of yours; every delivery is signed with a secret shown once."
        }
      >
        {register.data ? (
          <div className="space-y-4">
            <div className="flex items-center gap-2 rounded-md border border-amber-300 bg-amber-50 p-3">
              <code className="min-w-0 flex-1 break-all text-xs">{register.data.secret}</code>
              <CopyButton value={register.data.secret} label="Copy secret" />
            </div>
            <div className="flex justify-end">
              <button type="button" className="btn-primary" onClick={() => close(false)}>
                Done
              </button>
            </div>
          </div>
        ) : (
          <form
            className="space-y-4"
            onSubmit={(e) => {
              e.preventDefault();
              register.submit({ url, events: every ? ["*"] : WEBHOOK_EVENT_NAMES.filter((n) => picked.includes(n)) });
            }}
          >
            <div>
              <label htmlFor="hook-url" className="label">
                URL
              </label>
              <input
                id="hook-url"
                required
                className="field font-mono"
                aria-describedby="hook-url-error"
                aria-invalid={!!register.fieldError("url")}
                value={url}
                onChange={(e) => setUrl(e.target.value)}
                placeholder="https://example.com/bind-identity"
              />
              <FieldError id="hook-url-error" text={register.fieldError("url")} />
            </div>
            <fieldset aria-describedby="hook-events-error">
              <legend className="label">Events</legend>
              <div className="space-y-2 text-sm">
                <label className="flex items-start gap-2">
                  <input type="radio" name="hook-scope" className="mt-1" checked={every} onChange={() => setEvery(true)} />
                  <span>Every event, including events added later</span>
                </label>
                <label className="flex items-start gap-2">
                  <input type="radio" name="hook-scope" className="mt-1" checked={!every} onChange={() => setEvery(false)} />
                  <span>Only the events I pick</span>
                </label>
                {!every && (
                  <ul className="ml-6 space-y-2">
                    {WEBHOOK_EVENTS.map((e) => (
                      <li key={e.name}>
                        <label className="flex items-start gap-2">
                          <input
                            type="checkbox"
                            className="mt-1"
                            checked={picked.includes(e.name)}
                            onChange={(ev) => setPicked((p) => (ev.target.checked ? [...p, e.name] : p.filter((n) => n !== e.name)))}
                          />
                          <span>
                            <code className="text-xs">{e.name}</code>
                            <span className="block text-slate-600">{e.firesWhen}</span>
                          </span>
                        </label>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
              <FieldError
                id="hook-events-error"
                text={register.fieldError("events") ?? (!every && picked.length === 0 ? "Pick at least one event." : undefined)}
              />
            </fieldset>
            <FormError text={register.formError} />
            <div className="flex justify-end gap-2">
              <button type="button" className="btn-secondary" onClick={() => close(false)}>
                Cancel
              </button>
              <button type="submit" className="btn-primary" disabled={register.isPending || (!every && picked.length === 0)}>
                {register.isPending ? "Registering…" : "Register"}
              </button>
            </div>
          </form>
        )}
      </Modal>
    </>
  );
}
