/** Byte-array helpers shared by the codecs. */

/** The parts one after another in a new array (a plain Uint8Array, not a Node Buffer, so results compare equal to the codecs' other output). */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
