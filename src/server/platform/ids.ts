const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a caller-supplied id can be a row id. Checked before every look-up by id, so a malformed
 * id (or a NUL byte) is a plain 404 instead of a database error on the uuid column.
 */
export const isUuid = (s: string): boolean => UUID.test(s);
