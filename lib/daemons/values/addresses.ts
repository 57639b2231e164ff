/** IP addresses and CIDRs (node:net decides what an address is). */
import { isIP, isIPv4, isIPv6 } from "node:net";
import { fail, ok, type Parse } from "./parse.js";

export function parseIp(s: string): Parse<{ address: string; family: 4 | 6 }> {
  const family = isIP(s);
  if (family === 0) return fail(`"${s}" is not an IP address`);
  return ok({ address: s, family: family as 4 | 6 });
}

/** Comma-separated IP addresses. */
export function parseIpList(s: string): Parse<{ address: string; family: 4 | 6 }[]> {
  const out: { address: string; family: 4 | 6 }[] = [];
  for (const item of s.split(",").map((x) => x.trim())) {
    if (item === "") return fail(`"${s}" has an empty entry`);
    const ip = parseIp(item);
    if (!ip.ok) return ip;
    out.push(ip.value);
  }
  return ok(out);
}

export interface Cidr {
  text: string;
  family: 4 | 6;
  prefix: number;
}

/** `10.244.0.0/16`, `fd00::/48`: an address and a prefix length for its family. */
export function parseCidr(s: string): Parse<Cidr> {
  const slash = s.indexOf("/");
  if (slash < 0) return fail(`"${s}" is not a CIDR (address/prefix-length)`);
  const address = s.slice(0, slash);
  const len = s.slice(slash + 1);
  const family = isIPv4(address) ? 4 : isIPv6(address) ? 6 : 0;
  if (family === 0) return fail(`"${s}": "${address}" is not an IP address`);
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(len) || Number(len) > max) return fail(`"${s}": prefix length must be 0 to ${max}`);
  return ok({ text: s, family, prefix: Number(len) });
}

/** One CIDR, or two of different families (dual-stack). */
export function parseCidrList(s: string): Parse<Cidr[]> {
  const items = s.split(",").map((x) => x.trim());
  const out: Cidr[] = [];
  for (const item of items) {
    const c = parseCidr(item);
    if (!c.ok) return c;
    out.push(c.value);
  }
  if (out.length > 2) return fail(`"${s}": at most two CIDRs (one per family)`);
  if (out.length === 2 && out[0]?.family === out[1]?.family) return fail(`"${s}": a dual-stack pair needs one IPv4 and one IPv6 CIDR`);
  return ok(out);
}
