/**
 * The AML case statuses in which a case is still being worked. Here, below the domains, because
 * the aml domain (whose cases they are) and the people domain (whose erasure an open case holds)
 * both read it, and aml imports people.
 */
export const OPEN_STATUSES = ["open", "pending_approval"] as const;
