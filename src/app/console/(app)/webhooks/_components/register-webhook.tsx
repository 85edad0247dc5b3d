"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { WithDocLinks } from "@/components/console/docs-links";
import { FormDialog } from "@/components/ui/form-dialog";
import { fieldProblem } from "@/components/ui/form-field";
import { SecretOnce } from "@/components/ui/secret-once";
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
  const none = !every && picked.length === 0;
  const urlField = fieldProblem("hook-url", register.fieldError("url"));
  const events = fieldProblem("hook-events", register.fieldError("events") ?? (none ? "Pick at least one event." : undefined));
  return (
    <>
      <button type="button" className="btn-primary" onClick={() => setOpen(true)}>
        Register webhook
      </button>
      <FormDialog
        open={open}
        onOpenChange={close}
        title={register.data ? "Webhook registered" : "Register a webhook"}
        description={
          register.data ? (
            <WithDocLinks text={register.data.warning} />
          ) : (
            "An HTTPS endpoint of yours; every delivery is signed with a secret shown once."
          )
        }
        submission={register}
        onSubmit={() => register.submit({ url, events: every ? ["*"] : WEBHOOK_EVENT_NAMES.filter((n) => picked.includes(n)) })}
        submitLabel="Register"
        pendingLabel="Registering…"
        disabled={none}
        done={register.data && <SecretOnce secret={register.data.secret} />}
      >
        <div>
          <label htmlFor="hook-url" className="label">
            URL
          </label>
          <input
            id="hook-url"
            required
            className="field font-mono"
            {...urlField.attrs}
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder="https://example.com/bind-identity"
          />
          {urlField.line}
        </div>
        <fieldset aria-describedby={events.attrs["aria-describedby"]}>
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
          {events.line}
        </fieldset>
      </FormDialog>
    </>
  );
}
