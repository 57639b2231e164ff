/** Kubernetes versions as the controller manager's --emulated-version and friends write them (`kube=1.34`, `1.34`). */
import { fail, ok, type Parse } from "./parse.js";

export interface MajorMinor {
  major: number;
  minor: number;
}

export function parseMajorMinor(s: string): Parse<MajorMinor> {
  const m = /^v?(\d+)\.(\d+)$/.exec(s.trim());
  if (!m) return fail(`"${s}" is not <major>.<minor>`);
  return ok({ major: Number(m[1]), minor: Number(m[2]) });
}

export const compareMajorMinor = (a: MajorMinor, b: MajorMinor): number => a.major - b.major || a.minor - b.minor;
export const formatMajorMinor = (v: MajorMinor): string => `${v.major}.${v.minor}`;

/** `--emulated-version kube=1.34` (component `kube` when left out), comma-separated per component. */
export function parseVersionSelectors(s: string): Parse<{ component: string; version: MajorMinor }[]> {
  const out: { component: string; version: MajorMinor }[] = [];
  for (const raw of s.split(",")) {
    const item = raw.trim();
    if (item === "") continue;
    const eq = item.indexOf("=");
    const component = eq < 0 ? "kube" : item.slice(0, eq).trim();
    const v = parseMajorMinor(eq < 0 ? item : item.slice(eq + 1));
    if (!v.ok) return fail(`"${item}": expected component=major.minor (${v.error})`);
    out.push({ component, version: v.value });
  }
  return ok(out);
}
