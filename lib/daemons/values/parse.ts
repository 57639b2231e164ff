/**
 * The result every value parser of this folder returns: the value, or one line saying what is
 * wrong. The daemons are Go programs using pflag and the cluster's own value types, so the
 * syntax is Go's and the cluster's, not a general one; no maintained npm package reads these
 * exactly as Go does, hence the hand-written parsers beside this file.
 */
export type Parse<T> = { ok: true; value: T } | { ok: false; error: string };

export const ok = <T>(value: T): Parse<T> => ({ ok: true, value });
export const fail = <T>(error: string): Parse<T> => ({ ok: false, error });
