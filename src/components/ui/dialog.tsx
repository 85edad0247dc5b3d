"use client";

import { AlertDialog, Dialog } from "radix-ui";
import { useState } from "react";

const overlay = "fixed inset-0 z-40 bg-slate-900/40";
/**
 * Centred in the viewport and never taller than it (`dvh`: a phone's browser bars included): the
 * title stays on top, the body scrolls inside the panel, and `ModalActions` sticks to its bottom.
 */
const panel =
  "fixed left-1/2 top-1/2 z-50 flex max-h-[calc(100dvh-2rem)] w-[calc(100vw-2rem)] max-w-lg -translate-x-1/2 -translate-y-1/2 flex-col overflow-hidden rounded-lg bg-white shadow-xl focus:outline-none";

/**
 * The buttons of a modal: a row that stays at the bottom of the panel while the body scrolls
 * behind it, so the actions are always within reach (on a phone too).
 */
export function ModalActions({ children }: { children: React.ReactNode }) {
  return (
    <div className="sticky bottom-0 z-10 -mx-5 -mb-5 mt-4 flex flex-wrap justify-end gap-2 border-t border-slate-200 bg-white px-5 py-3">
      {children}
    </div>
  );
}

/** A modal form or message (Radix Dialog: focus trap, Escape closes, focus returns to the trigger). */
export function Modal(props: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: React.ReactNode;
  children: React.ReactNode;
}) {
  return (
    <Dialog.Root open={props.open} onOpenChange={props.onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className={overlay} />
        <Dialog.Content className={panel}>
          <div className="border-b border-slate-100 px-5 pb-3 pt-5">
            <Dialog.Title className="text-lg font-semibold">{props.title}</Dialog.Title>
            {props.description ? (
              <Dialog.Description className="mt-1 text-sm text-slate-600 [overflow-wrap:anywhere]">{props.description}</Dialog.Description>
            ) : (
              <Dialog.Description className="sr-only">{props.title}</Dialog.Description>
            )}
          </div>
          <div className="min-h-0 flex-1 overflow-y-auto px-5 pb-5 pt-4">{props.children}</div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/**
 * Asks before a destructive action (Radix AlertDialog: Cancel has focus first, so Enter does not
 * destroy anything by accident).
 */
export function Confirm(props: {
  trigger: React.ReactNode;
  title: string;
  description: React.ReactNode;
  confirmLabel: string;
  onConfirm: () => void | Promise<unknown>;
  destructive?: boolean;
}) {
  const [open, setOpen] = useState(false);
  return (
    <AlertDialog.Root open={open} onOpenChange={setOpen}>
      <AlertDialog.Trigger asChild>{props.trigger}</AlertDialog.Trigger>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className={overlay} />
        <AlertDialog.Content className={panel}>
          <div className="min-h-0 flex-1 overflow-y-auto px-5 pt-5">
            <AlertDialog.Title className="text-lg font-semibold [overflow-wrap:anywhere]">{props.title}</AlertDialog.Title>
            <AlertDialog.Description className="mt-2 pb-1 text-sm text-slate-600 [overflow-wrap:anywhere]">
              {props.description}
            </AlertDialog.Description>
          </div>
          <div className="flex flex-col-reverse gap-2 px-5 pb-5 pt-4 sm:flex-row sm:justify-end">
            <AlertDialog.Cancel className="btn-secondary">Cancel</AlertDialog.Cancel>
            <AlertDialog.Action
              className={props.destructive === false ? "btn-primary" : "btn-danger"}
              onClick={() => void props.onConfirm()}
            >
              {props.confirmLabel}
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
