/** A normative statement of one of the three spec documents, as the suites check it. */
export type RuleLevel = "required" | "optional" | "gated";

export type SpecDoc = "doc1" | "doc2" | "doc3";

export interface FeatureGate {
  name: string;
  /** Default state of the gate in release 1.35, as the spec gives it. */
  default: boolean;
}

export interface Rule {
  /** Stable id: `<doc>.<section-slug>.<rule-slug>`, lowercase, digits and dashes. Never renamed once published. */
  id: string;
  /** One line, imperative or declarative, in our own words. */
  title: string;
  doc: SpecDoc;
  /** The heading the statement sits under, exactly as written in the document (without the leading #s). */
  section: string;
  level: RuleLevel;
  /** Set exactly when level is "gated". */
  gate?: FeatureGate;
  /**
   * Where a real 1.35 server differs from, or fills in, the spec text (facts from
   * ../shared/docs/wire-facts.md). The suites expect what the real server does.
   */
  realServer?: string;
  /**
   * Set to "client" when the statement binds API clients, not the server ("clients handle 410 by
   * retrying…"). tollgate is a client itself: such a rule is covered by a suite that performs the
   * duty over HTTP and checks the server's side of it, or by the unit tests of tollgate's own
   * client code (test/), which name the rule. A run against a target gives no server verdict
   * for a client rule that only test/ names.
   */
  subject?: "client";
  /**
   * Set when no request from outside can tell whether a server keeps the statement (that an
   * Exact list is served from a watch-cache snapshot rather than from storage looks the same on
   * the wire): why. A run reports such a rule as "not observable", never as passed, and no test
   * may claim to examine it.
   */
  unobservable?: string;
}
