import type { z } from "zod";
import type { CheckoutResult, PlanCatalog } from "@/server/services/billing";

export type Plan = z.infer<typeof PlanCatalog>["plans"][number];
export type PlanId = Plan["id"];
export type ChainPayment = NonNullable<Extract<z.infer<typeof CheckoutResult>, { status: "awaiting_payment" }>["chainPayment"]>;

export const PLAN_IDS: readonly PlanId[] = ["builder", "growth", "institutional"];

export type Step = "email" | "code" | "plan" | "payment" | "revealed" | "lead";

/**
 * Where the signup stands, kept in this tab's sessionStorage so a reload keeps the step. It holds
 * the email proof (the one secret that later unlocks a paid key, never put in a URL) but never
 * the API key or the console password: those live in memory only, for the one showing.
 */
export type SignupState = {
  step: Step;
  email: string;
  emailMasked?: string;
  challengeId?: string;
  codeExpiresAt?: string;
  /** A local sandbox's code, shown beside the field (never sent by a production service); kept so a reload still shows it. */
  devCode?: string;
  emailProofToken?: string;
  proofExpiresAt?: number;
  plan: PlanId;
  organizationName: string;
  expectedMonthlyVerifications: string;
  message: string;
  /** The Idempotency-Key of the checkout being sent, and the body it was sent with: a resend of the same body replays. */
  idempotencyKey?: string;
  idempotencyBody?: string;
  sessionId?: string;
  checkoutUrl?: string;
  chainPayment?: ChainPayment | null;
  /** The transfer being confirmed: after a reload the page resumes confirming it. */
  transactionId?: string;
  payer?: string;
  /** After the reveal: what signing in needs (not a secret). */
  organizationId?: string;
};

const KEY = "bi-signup";
const STEPS: readonly Step[] = ["email", "code", "plan", "payment", "revealed", "lead"];

export const initialState = (plan: PlanId): SignupState => ({
  step: "email",
  email: "",
  plan,
  organizationName: "",
  expectedMonthlyVerifications: "",
  message: "",
});

/** The stored signup of this tab, or a new one; anything unreadable starts over. */
export function loadState(plan: PlanId, planFromUrl: boolean): SignupState {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (raw) {
      const s = JSON.parse(raw) as SignupState;
      const complete =
        (s.step !== "code" || typeof s.challengeId === "string") &&
        (s.step !== "plan" || typeof s.emailProofToken === "string") &&
        (s.step !== "payment" || typeof s.sessionId === "string");
      if (STEPS.includes(s.step) && PLAN_IDS.includes(s.plan) && typeof s.email === "string" && complete) {
        // A link to another plan (from /pricing) chooses it, as long as nothing was sent for a plan yet.
        const kept = { ...initialState(s.plan), ...s };
        return planFromUrl && (s.step === "email" || s.step === "code" || s.step === "plan") ? { ...kept, plan } : kept;
      }
    }
  } catch {
    // Storage switched off or a damaged entry: start over.
  }
  return initialState(plan);
}

export function saveState(s: SignupState): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(s));
  } catch {
    // Storage switched off: the signup still works, it just does not survive a reload.
  }
}
