/**
 * doc1 "Continuation": a continue token encodes the list's version and the last position. A real
 * server's token (wire-facts §9) is base64url without padding of the compact JSON
 * {"v":"meta.k8s.io/v1","rv":<list version>,"start":"<last key>\u0000"}, the key relative to the
 * list's prefix ("name" in one namespace, "namespace/name" across namespaces). A server may add
 * keys of its own (the emulator stamps its tokens), so only these three are checked.
 */
import { expect } from "vitest";

export interface DecodedContinueToken {
  readonly v?: unknown;
  readonly rv?: unknown;
  readonly start?: unknown;
}

/** The token's JSON, or undefined when it is no base64url JSON object. */
export function decodeContinueToken(token: string): DecodedContinueToken | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as DecodedContinueToken) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The token names the list version it pins (rv; -1 for "the latest", as a 410's fresh token) and
 * resumes right after lastKey, the last item the chunk examined.
 */
export function expectContinueToken(token: unknown, rv: string, lastKey: string, what = "the continue token"): void {
  expect(typeof token === "string" && token !== "", `${what}: a non-empty string, not ${JSON.stringify(token)}`).toBe(true);
  const decoded = decodeContinueToken(token as string);
  expect(decoded, `${what} ${JSON.stringify(token)}: base64url of a JSON object`).toBeDefined();
  expect({ v: decoded?.v, rv: decoded?.rv, start: decoded?.start }, `${what}: the list version and the position after ${JSON.stringify(lastKey)}`).toEqual({
    v: "meta.k8s.io/v1",
    rv: Number(rv),
    start: `${lastKey}\u0000`,
  });
}
