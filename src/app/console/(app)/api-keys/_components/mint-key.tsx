"use client";

import { useState } from "react";
import { present, textIssue } from "@/components/ui/error-text";
import { FormDialog } from "@/components/ui/form-dialog";
import { Counter, fieldProblem } from "@/components/ui/form-field";
import { SecretOnce } from "@/components/ui/secret-once";
import { useSubmission } from "@/components/ui/use-submission";
import { SCOPES, type Scope } from "@/lib/scopes";
import { useTRPCClient } from "@/trpc/react";

const KEY_FIELDS = { name: { label: "key name" }, scopes: { label: "scope" } };

/** A new API key with a name and the scopes it needs; the key itself is shown once. */
export function MintKey({ onMinted }: { onMinted: () => void }) {
  const client = useTRPCClient();
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>(["read"]);
  const mint = useSubmission(client.apiKeys.mint, {
    fields: KEY_FIELDS,
    validate: (input) =>
      present([
        textIssue(["name"], input.name, 2, 64),
        input.scopes?.length ? null : { path: ["scopes"], code: "too_small", origin: "array", minimum: 1 },
      ]),
    onSuccess: () => onMinted(),
  });
  const close = (o: boolean) => {
    setOpen(o);
    if (!o) {
      mint.reset();
      setName("");
      setScopes(["read"]);
    }
  };
  const toggle = (s: Scope) => setScopes((all) => (all.includes(s) ? all.filter((x) => x !== s) : [...all, s]));
  const nameField = fieldProblem("key-name", mint.fieldError("name"), "key-name-count");
  const scopesField = fieldProblem("key-scopes", mint.fieldError("scopes"));
  return (
    <>
      <button type="button" className="btn-primary" onClick={() => setOpen(true)}>
        Mint key
      </button>
      <FormDialog
        open={open}
        onOpenChange={close}
        title={mint.data ? "Your new API key" : "Mint an API key"}
        description={mint.data ? mint.data.warning : "Give each integration its own key with only the scopes it needs."}
        submission={mint}
        onSubmit={() => mint.submit({ name, scopes })}
        submitLabel="Mint key"
        pendingLabel="Minting…"
        disabled={scopes.length === 0}
        done={
          mint.data && (
            <SecretOnce
              secret={mint.data.apiKey}
              warning="Shown once. Copy it now and store it in your secrets manager."
              copyLabel="Copy key"
              testId="minted-key"
            />
          )
        }
      >
        <div>
          <label htmlFor="key-name" className="label">
            Name
          </label>
          <input
            id="key-name"
            required
            {...nameField.attrs}
            className="field"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. Wallet backend (production)"
          />
          {nameField.line}
          <Counter id="key-name-count" value={name} min={2} max={64} />
        </div>
        <fieldset>
          <legend className="label">Scopes</legend>
          <div className="grid grid-cols-1 gap-1.5 sm:grid-cols-2">
            {SCOPES.map((s) => (
              <label key={s} className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={scopes.includes(s)}
                  onChange={() => toggle(s)}
                  className="h-4 w-4 rounded border-slate-300"
                />
                <code>{s}</code>
              </label>
            ))}
          </div>
          {scopesField.line}
        </fieldset>
      </FormDialog>
    </>
  );
}
