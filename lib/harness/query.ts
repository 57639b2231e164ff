/** Query parameters of a request, and their query string. */

export type Query = Record<string, string | number | boolean | undefined>;

export function buildQuery(query: Query | undefined): string {
  if (!query) return "";
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : "";
}
