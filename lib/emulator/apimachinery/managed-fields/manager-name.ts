/**
 * Field manager names: how long and which characters (ValidateFieldManager's limits), and the
 * name a non-apply write records when the request names no fieldManager (prefixFromUserAgent).
 * Here, below both users: the endpoints validate a requested name (patch/options.ts), and the
 * registry's ownership records a write's manager (registry/generic/ownership.ts).
 */

export const FIELD_MANAGER_MAX_LENGTH = 128;

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Whether one character is printable as Go's unicode.IsPrint has it (letters, marks, numbers, punctuation, symbols, the ASCII space). */
export function isPrintableRune(ch: string): boolean {
  return PRINTABLE.test(ch);
}

/** prefixFromUserAgent: the program name a client puts before the first "/", unprintable characters dropped, cut to 128 bytes. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const head = (userAgent ?? "").split("/")[0] ?? "";
  let out = "";
  for (const ch of head) {
    if (!isPrintableRune(ch)) continue;
    if (Buffer.byteLength(out + ch) > FIELD_MANAGER_MAX_LENGTH) break;
    out += ch;
  }
  return out;
}
