/** Resource quantities (`10Mi`, `500m`, `1e3`), alone and as --reserved-memory's per-NUMA-node maps. */
import { parsePairs } from "./lists.js";
import { fail, ok, type Parse } from "./parse.js";

const BINARY_SUFFIX: ReadonlyMap<string, bigint> = new Map([
  ["Ki", 1n << 10n],
  ["Mi", 1n << 20n],
  ["Gi", 1n << 30n],
  ["Ti", 1n << 40n],
  ["Pi", 1n << 50n],
  ["Ei", 1n << 60n],
]);
const DECIMAL_EXP: ReadonlyMap<string, number> = new Map([
  ["n", -9],
  ["u", -6],
  ["m", -3],
  ["", 0],
  ["k", 3],
  ["M", 6],
  ["G", 9],
  ["T", 12],
  ["P", 15],
  ["E", 18],
]);

/**
 * A resource quantity (`128974848`, `129e6`, `129M`, `123Mi`, `500m`), as a count of
 * nano-units rounded up, the way the cluster rounds quantities it cannot hold exactly.
 * Exact integers make sums of reservations comparable without floating-point error.
 */
export function parseQuantity(s: string): Parse<bigint> {
  const m = /^([+-]?)(\d+\.?\d*|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE]?)$/.exec(s);
  if (!m) return fail(`"${s}" is not a quantity (forms like 100, 500m, 10Mi, 1Gi, 1e3)`);
  const [, sign = "", num = "", suffix = ""] = m;
  const [intPart = "", fracPart = ""] = num.split(".");
  let numerator = BigInt(`${intPart || "0"}${fracPart}`);
  let exp10 = -fracPart.length;
  const binary = BINARY_SUFFIX.get(suffix);
  if (binary !== undefined) numerator *= binary;
  else if (/^[eE]/.test(suffix)) exp10 += Number(suffix.slice(1));
  else exp10 += DECIMAL_EXP.get(suffix) ?? 0;
  exp10 += 9; // to nano-units
  let nano: bigint;
  if (exp10 >= 0) nano = numerator * 10n ** BigInt(exp10);
  else {
    const d = 10n ** BigInt(-exp10);
    nano = (numerator + d - 1n) / d;
  }
  return ok(sign === "-" ? -nano : nano);
}

/** A quantity in nano-units, written back in whole units where it is whole (for messages). */
export function formatNano(nano: bigint): string {
  if (nano % 1_000_000_000n === 0n) {
    const units = nano / 1_000_000_000n;
    for (const [suffix, size] of [...BINARY_SUFFIX].reverse()) if (units !== 0n && units % size === 0n) return `${units / size}${suffix}`;
    return `${units}`;
  }
  return `${nano}n`;
}

/** `--reserved-memory 0:memory=1Gi,hugepages-1M=2Gi`, several NUMA nodes separated by `;` or given as repeated options. */
export function parseReservedMemory(v: string): Parse<Map<number, Map<string, bigint>>> {
  const out = new Map<number, Map<string, bigint>>();
  for (const part of v
    .split(";")
    .map((x) => x.trim())
    .filter((x) => x !== "")) {
    const m = /^(\d+):(.+)$/.exec(part);
    if (!m) return fail(`"${part}": expected <NUMA node>:<resource>=<quantity>,...`);
    const pairs = parsePairs(m[2] as string);
    if (!pairs.ok) return fail(pairs.error);
    const node = new Map<string, bigint>();
    for (const [res, qty] of pairs.value) {
      if (res !== "memory" && !/^hugepages-/.test(res)) return fail(`"${res}": only memory and hugepages-<size> can be reserved per NUMA node`);
      const q = parseQuantity(qty);
      if (!q.ok) return fail(q.error);
      node.set(res, q.value);
    }
    out.set(Number(m[1]), node);
  }
  return ok(out);
}
