/** The badge colour of each KYC status, wherever the person page shows one. */
export const KYC_TONE = {
  not_started: "slate",
  pending: "amber",
  in_review: "amber",
  approved: "green",
  rejected: "red",
  retry: "amber",
} as const;
