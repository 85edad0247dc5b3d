"use client";

import { useState } from "react";
import { signOutNow } from "@/components/console/shell";
import { FormError, fieldProblem } from "@/components/ui/form-field";
import { Section } from "@/components/ui/section";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { useTRPCClient } from "@/trpc/react";

const PASSWORD_FIELDS = { currentPassword: { label: "current password" }, newPassword: { label: "new password" } };

/** The organization's shared console password (owners only); changing it signs everyone out. */
export function ConsolePassword() {
  const client = useTRPCClient();
  const toast = useToast();
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const change = useSubmission(client.tenant.changePassword, {
    fields: PASSWORD_FIELDS,
    validate: (input) =>
      input.newPassword.length < 12 ? [{ path: ["newPassword"], code: "too_small", origin: "string", minimum: 12 }] : [],
    onSuccess: async () => {
      toast({ tone: "ok", title: "Password changed", body: "Every session is signed out." });
      await signOutNow("ended");
    },
  });
  const newField = fieldProblem("pw-new", change.fieldError("newPassword"));
  return (
    <Section
      title="Console password"
      id="password-h"
      description="Shared by every member, with their own emailed code. Changing it signs everyone out, you included."
    >
      <form
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          change.submit({ currentPassword: current, newPassword: next });
        }}
      >
        <div>
          <label htmlFor="pw-current" className="label">
            Current password
          </label>
          <input
            id="pw-current"
            type="password"
            autoComplete="current-password"
            className="field"
            value={current}
            onChange={(e) => setCurrent(e.target.value)}
            required
          />
        </div>
        <div>
          <label htmlFor="pw-new" className="label">
            New password (12 characters or more)
          </label>
          <input
            id="pw-new"
            type="password"
            autoComplete="new-password"
            {...newField.attrs}
            className="field"
            value={next}
            onChange={(e) => setNext(e.target.value)}
            required
          />
        </div>
        {newField.line}
        <FormError text={change.formError} />
        <button type="submit" className="btn-primary" disabled={change.isPending}>
          Change password
        </button>
      </form>
    </Section>
  );
}
