/**
 * The contract between a suite file and the runner (in the spirit of test262's harness
 * notes): every test is declared with `check({ title, rules, needs }, fn)`, gets a Session for the
 * target that the runner provided, works in namespaces it creates, and cleans up in
 * afterAll whatever happened. The rule ids travel in the task meta to the reporters.
 */
import { afterAll, beforeAll, expect, inject } from "vitest";
import "../../lib/report/task-meta.js";
import "../../lib/runner/settings.js";
import { ApiError, type ApiResponse, UnreachableError } from "../../lib/harness/client.js";
import { type RunSettings, Session } from "../../lib/harness/session.js";
import type { Capability } from "../../lib/runner/capabilities.js";
import { currentFile, declareTest, fileSetupUnanswered, type TestDeclaration } from "../../lib/runner/declare.js";

export interface SuiteHandle {
  /** The session; valid inside tests and hooks. */
  readonly session: Session;
  /** The suite's first namespace, created in beforeAll. */
  readonly ns: string;
}

/**
 * Opens a session for this file, with one namespace made in beforeAll and everything removed in
 * afterAll. A target that does not answer is not the suite's failure: its tests end as "target
 * unavailable" (lib/runner/declare.ts), and what the cleanup could not remove is left to the
 * run's own cleanup by the run label. `settings` is for the helper's own tests; a suite leaves it
 * to the runner's.
 */
export function useSuite(name: string, settings: () => RunSettings = () => inject("tollgate")): SuiteHandle {
  let session: Session | undefined;
  let ns: string | undefined;
  let unanswered: UnreachableError | undefined;
  const file = currentFile();
  beforeAll(async () => {
    session = new Session(settings(), name);
    try {
      ns = await session.createNamespace(name);
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
      unanswered = e;
      fileSetupUnanswered(file, e.message);
    }
  });
  afterAll(async () => {
    try {
      await session?.cleanup();
    } catch (e) {
      if (!(e instanceof UnreachableError)) throw e;
    }
  });
  return {
    get session(): Session {
      if (!session) throw new Error("the suite session is only available inside tests and hooks");
      return session;
    },
    get ns(): string {
      // A hook of the suite's own that needs the namespace fails as the target did, not as a broken suite.
      if (unanswered) throw unanswered;
      if (!ns) throw new Error("the suite namespace is only available inside tests and hooks");
      return ns;
    },
  };
}

/**
 * Declares a conformance test: its title, the catalog rules it examines, and what it needs
 * from the target (lib/runner/capabilities.ts). The runner decides from `needs` whether it
 * applies; a test body that meets an unexpected answer fails, it never skips.
 */
export function check(decl: TestDeclaration, fn: () => Promise<void> | void): void {
  declareTest(decl, fn);
}

export type { TestDeclaration };

/**
 * Whether the target offers a capability, as the runner detected it before any test. For a test
 * that adapts what it covers (the encodings it round-trips) rather than whether it applies; that
 * is what `needs` is for.
 */
export function offers(capability: Capability): boolean {
  return inject("tollgate").capabilities[capability].available;
}

/** Awaits a request that must fail with `code`; returns the error for further checks of its Status. */
export async function expectFailure(p: Promise<unknown>, code: number): Promise<ApiError> {
  let result: unknown;
  try {
    result = await p;
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    expect(e.code, e.message).toBe(code);
    return e;
  }
  throw new Error(`expected HTTP ${code}, but the request succeeded with ${JSON.stringify(result).slice(0, 300)}`);
}

let counter = 0;
/** A name unique within this worker, valid as a DNS-1123 label and subdomain. */
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

/** A real server refuses bad list/watch option combinations with 422 Invalid on meta.k8s.io ListOptions (wire-facts §2). */
export function expectListOptionsInvalid(res: ApiResponse, field: string): void {
  expect(res.code, res.text.slice(0, 300)).toBe(422);
  expect(res.json).toMatchObject({ kind: "Status", status: "Failure", reason: "Invalid", code: 422, details: { kind: "ListOptions", group: "meta.k8s.io" } });
  // The Status matched above has details, and a missing causes list fails toContain as an empty one does.
  // Stryker disable next-line OptionalChaining,ArrayDeclaration: equivalent, see above
  const fields = ((res.json as { details?: { causes?: { field?: string }[] } }).details?.causes ?? []).map((c) => c.field);
  expect(fields).toContain(field);
}

/**
 * A refused media type: 406 NotAcceptable (by default `only the following media types are accepted: …`),
 * the body pretty JSON with 2-space indent as no type the client accepts is left to write it in (wire-facts §4).
 */
export function expectNotAcceptable(res: ApiResponse, message = /^only the following media types are accepted: application\/json, /): void {
  expect(res.code, res.text.slice(0, 300)).toBe(406);
  expect(res.text, "a 406 body is pretty-printed JSON").toMatch(/^\{\n {2}"kind": "Status",\n/);
  expect(res.json).toMatchObject({ kind: "Status", status: "Failure", reason: "NotAcceptable", code: 406 });
  expect((res.json as { message?: string }).message).toMatch(message);
}

/** Warning header items: `299 - "text"`, comma-separated when folded into one header. */
export function warnings(res: ApiResponse): string[] {
  // Stryker disable next-line StringLiteral: equivalent, any text without a 299 item reads as none
  const raw = res.headers.warning ?? "";
  return [...raw.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1] as string}"`) as string);
}
