/** The TLS file options' value syntax beyond a plain path. */
import { fail, ok, type Parse } from "./parse.js";

/** `--tls-sni-cert-key certfile,keyfile[:domain,...]`. */
export function parseSniCertKey(s: string): Parse<{ cert: string; key: string; domains: string[] }> {
  const colon = s.indexOf(":");
  const files = colon < 0 ? s : s.slice(0, colon);
  const domains =
    colon < 0
      ? []
      : s
          .slice(colon + 1)
          .split(",")
          .map((d) => d.trim());
  const parts = files.split(",").map((p) => p.trim());
  if (parts.length !== 2 || parts.some((p) => p === "")) return fail(`"${s}": expected certfile,keyfile optionally followed by :domain,...`);
  if (domains.some((d) => d === "")) return fail(`"${s}": empty domain pattern`);
  return ok({ cert: parts[0] as string, key: parts[1] as string, domains });
}
