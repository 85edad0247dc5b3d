"use client";

import { Modal, ModalActions } from "./dialog";
import { FormError } from "./form-field";

/** What a form dialog reads of its `useSubmission`: whether it runs, and the words no field shows. */
type Submission = { isPending: boolean; formError: string | null };

/**
 * A dialog holding one form: its fields, then the line of what no field shows (the service's
 * refusal, in words from `error-text.ts`), then Cancel and the submit button in `ModalActions`.
 * The button is disabled while the submission runs; `useSubmission` itself ignores a second
 * submit. Once `done` holds something (the answer, a secret shown once) it takes the form's
 * place, with a Done button that closes the dialog.
 */
export function FormDialog(props: {
  open?: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: React.ReactNode;
  submission: Submission;
  onSubmit: () => void;
  submitLabel: string;
  /** The button's words while the submission runs; the submit label when not given. */
  pendingLabel?: string;
  destructive?: boolean;
  /** Disables the submit button for a reason of the form's own (nothing picked yet). */
  disabled?: boolean;
  /** The form's layout classes ("space-y-4" when not given). */
  className?: string;
  done?: React.ReactNode;
  children: React.ReactNode;
}) {
  const close = () => props.onOpenChange(false);
  const { isPending, formError } = props.submission;
  return (
    <Modal open={props.open ?? true} onOpenChange={props.onOpenChange} title={props.title} description={props.description}>
      {props.done ? (
        <div className="space-y-4">
          {props.done}
          <div className="flex justify-end">
            <button type="button" className="btn-primary" onClick={close}>
              Done
            </button>
          </div>
        </div>
      ) : (
        <form
          // pb-1 keeps the negative bottom margin of ModalActions inside the form: a dialog whose
          // content fits does not scroll its last field under the buttons.
          className={`${props.className ?? "space-y-4"} pb-1`.trim()}
          onSubmit={(e) => {
            e.preventDefault();
            props.onSubmit();
          }}
        >
          {props.children}
          <FormError text={formError} />
          <ModalActions>
            <button type="button" className="btn-secondary" onClick={close}>
              Cancel
            </button>
            <button type="submit" className={props.destructive ? "btn-danger" : "btn-primary"} disabled={isPending || props.disabled}>
              {isPending && props.pendingLabel ? props.pendingLabel : props.submitLabel}
            </button>
          </ModalActions>
        </form>
      )}
    </Modal>
  );
}
