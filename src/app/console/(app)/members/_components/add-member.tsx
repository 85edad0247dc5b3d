"use client";

import { useState } from "react";
import { FormDialog } from "@/components/ui/form-dialog";
import { useToast } from "@/components/ui/toast";
import { useSubmission } from "@/components/ui/use-submission";
import { type Role, roleLabel } from "@/lib/roles";
import { useTRPCClient } from "@/trpc/react";

/** Adds a member (or updates and reactivates an existing address) with a role up to the caller's own; they are emailed an invitation. */
export function AddMember({ grantable, onAdded }: { grantable: Role[]; onAdded: () => void }) {
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const client = useTRPCClient();
  const add = useSubmission(client.members.add, {
    fields: { email: { label: "email" } },
    onSuccess: (m) => {
      toast({
        tone: "ok",
        title: `${m.email} added as ${roleLabel(m.role)}`,
        body: "An invitation to set up their sign-in was emailed to them.",
      });
      setOpen(false);
      setEmail("");
      onAdded();
    },
  });
  return (
    <>
      <button type="button" className="btn-primary" onClick={() => setOpen(true)}>
        Add member
      </button>
      <FormDialog
        open={open}
        onOpenChange={(o) => {
          setOpen(o);
          add.reset();
        }}
        title="Add a member"
        description="We email them a link to set up a passkey or a password with an authenticator app; it works once, for 72 hours. Adding an existing address updates its role and reactivates it."
        // Every refusal, the email's words included, is the dialog's alert: the email is the one field the service refuses.
        submission={{ isPending: add.isPending, formError: add.error?.message ?? null }}
        onSubmit={() => add.submit({ email, role })}
        submitLabel="Add member"
        pendingLabel="Adding…"
      >
        <div>
          <label htmlFor="member-email" className="label">
            Email
          </label>
          <input id="member-email" type="email" required className="field" value={email} onChange={(e) => setEmail(e.target.value)} />
        </div>
        <div>
          <label htmlFor="member-role" className="label">
            Role
          </label>
          <select id="member-role" className="field" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {grantable.map((r) => (
              <option key={r} value={r}>
                {roleLabel(r)}
              </option>
            ))}
          </select>
        </div>
      </FormDialog>
    </>
  );
}
