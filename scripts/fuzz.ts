/**
 * The long fuzzing run (`npm run fuzz`): many generated requests (test/fuzz/requests.ts, the
 * long-run options) against an emulator started in a child process, so its memory is measured
 * apart from the fuzzer's, or against any server (--target). Prints the figures and exits
 * non-zero on a 5xx outside the listed exceptions, a reset, a hang or a malformed error answer.
 *
 *   npm run fuzz -- [--requests N] [--seed S] [--concurrency C] [--no-auth] [--known all|none|name,...]
 *                   [--target URL [--token T] [--admin]]
 *
 * A script rather than a `tollgate` subcommand: it is test tooling built on the test generator,
 * which the shipped CLI should not carry.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import fc from "fast-check";
import { request } from "undici";
import { describe, newDispatcher, type Outcome, prepare, send, type Tokens } from "../test/fuzz/check.js";
import {
  FULL_OPTIONS,
  type FuzzRequest,
  type GeneratorOptions,
  KNOWN_DEFECTS,
  type KnownDefect,
  requestArb,
  seedRequests,
  tokenRequest,
} from "../test/fuzz/requests.js";

const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "100000" },
    seed: { type: "string" },
    concurrency: { type: "string", default: "32" },
    target: { type: "string" },
    token: { type: "string" },
    admin: { type: "boolean", default: false },
    "no-auth": { type: "boolean", default: false },
    known: { type: "string", default: "all" },
  },
});

const total = Number(values.requests);
const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const concurrency = Number(values.concurrency);
const auth = !values["no-auth"];
const ADMIN_TOKEN = "fuzz-admin-token";

interface Server {
  url: string;
  adminToken?: string;
  child?: ChildProcess;
}

const BIN = fileURLToPath(new URL("../bin/tollgate.js", import.meta.url));

/** `tollgate emulator` in a child process, with the admin endpoint, CBOR and (unless --no-auth) auth on. */
async function startChild(): Promise<Server> {
  const args = [BIN, "emulator", "--port", "0", "--admin", "--feature-gates", "CBORServingAndStorage=true"];
  // Plain HTTP: the fuzzer sends its token itself, and attacks the HTTP front, not TLS.
  if (auth) args.push("--auth", "--plain-http", "--admin-token", ADMIN_TOKEN);
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  // The emulator goes with the fuzzer, whatever ends it.
  process.once("exit", () => child.kill("SIGKILL"));
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.once("exit", (code) => reject(new Error(`emulator exited with ${code}: ${out}`)));
  });
  child.stdout?.resume();
  return { url, child, ...(auth ? { adminToken: ADMIN_TOKEN } : {}) };
}

/**
 * VmRSS in bytes (Linux, /proc) of a process and its descendants: bin/tollgate.js runs the
 * emulator in a child of its own (a larger stack), so the child spawned here is only a wrapper.
 */
function rssOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    let total = m?.[1] ? Number(m[1]) * 1024 : 0;
    for (const child of childrenOf(pid)) total += rssOf(child) ?? 0;
    return total;
  } catch {
    return undefined;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) => readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter(Boolean).map(Number));
  } catch {
    return [];
  }
}

const mib = (b: number | undefined): string => (b === undefined ? "n/a" : `${(b / 2 ** 20).toFixed(1)} MiB`);

/** --known: all the known-defect generators (KNOWN_DEFECTS), none, or the ones named. */
function knownGenerators(arg: string): Set<KnownDefect> {
  if (arg === "all") return new Set(FULL_OPTIONS.known);
  if (arg === "none") return new Set();
  const names = arg.split(",").filter(Boolean);
  const unknown = names.filter((n) => !(n in KNOWN_DEFECTS));
  if (unknown.length) throw new Error(`--known: no generator ${unknown.join(", ")} (there are ${Object.keys(KNOWN_DEFECTS).join(", ")})`);
  return new Set(names as KnownDefect[]);
}

async function main(): Promise<number> {
  const server: Server = values.target ? { url: values.target.replace(/\/$/, ""), ...(values.token ? { adminToken: values.token } : {}) } : await startChild();
  const options: GeneratorOptions = {
    ...FULL_OPTIONS,
    // Against a server of someone else's, /tollgate/admin requests only when asked for.
    admin: values.target ? values.admin : true,
    known: knownGenerators(values.known),
  };
  const dispatcher = newDispatcher(concurrency);
  const tokens: Tokens = await prepare(server.url, dispatcher, seedRequests(), tokenRequest(), server.adminToken);
  const rssBefore = rssOf(server.child?.pid);
  const started = performance.now();
  const arb = requestArb(options);
  const counts = { requests: 0, "2xx": 0, "3xx": 0, "4xx": 0, "5xx": 0, allowed5xx: 0, bad: 0, resets: 0, hangs: 0, client: 0 };
  const failures: { req: FuzzRequest; out: Outcome }[] = [];
  let rssPeak = rssBefore ?? 0;
  const CHUNK = 2_000;
  for (let done = 0; done < total; done += CHUNK) {
    // One deterministic chunk per seed + index, so a seed replays the same requests.
    const reqs = fc.sample(arb, { numRuns: Math.min(CHUNK, total - done), seed: seed + done });
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < reqs.length) {
          const req = reqs[next++] as FuzzRequest;
          const out = await send(server.url, dispatcher, req, tokens);
          counts.requests++;
          if (out.status !== undefined) {
            const cls = `${Math.floor(out.status / 100)}xx` as "2xx";
            if (cls in counts) counts[cls]++;
          }
          if (out.exception) counts.allowed5xx++;
          if (out.kind === "bad") counts.bad++;
          if (out.kind === "reset") counts.resets++;
          if (out.kind === "hang") counts.hangs++;
          if (out.kind === "client") counts.client++;
          if (out.kind !== "ok" && out.kind !== "client") {
            failures.push({ req, out });
            // The first ones at once, so a long run shows what it found while it goes on.
            if (failures.length <= 20) process.stderr.write(`\n  [${out.kind}${out.status ? ` ${out.status}` : ""}] ${out.problem}\n      ${describe(req)}\n`);
          }
        }
      }),
    );
    rssPeak = Math.max(rssPeak, rssOf(server.child?.pid) ?? 0);
    process.stderr.write(`\r${counts.requests}/${total} requests, ${failures.length} failures`);
  }
  process.stderr.write("\n");
  const seconds = (performance.now() - started) / 1000;
  const alive = await request(`${server.url}/healthz`, { dispatcher, headers: server.adminToken ? { authorization: `Bearer ${server.adminToken}` } : {} })
    .then(async (r) => `${r.statusCode} ${await r.body.text()}`)
    .catch((e: Error) => `no answer: ${e.message}`);
  // The server settles (watches end, garbage is collected) before the last memory reading.
  await new Promise((r) => setTimeout(r, 3_000));
  const rssAfter = rssOf(server.child?.pid);

  console.log(
    `\nfuzz: ${counts.requests} requests in ${seconds.toFixed(1)} s (${(counts.requests / seconds).toFixed(0)}/s), concurrency ${concurrency}, seed ${seed}`,
  );
  console.log(`target: ${values.target ?? `embedded emulator (child process${auth ? ", auth on" : ""}, admin on, CBOR on)`}`);
  console.log(`known-defect generators: ${options.known.size ? [...options.known].map((k) => `${k} (${KNOWN_DEFECTS[k]})`).join(", ") : "off"}`);
  console.log(
    `answers: 2xx ${counts["2xx"]}, 3xx ${counts["3xx"]}, 4xx ${counts["4xx"]}, 5xx ${counts["5xx"]} (${counts.allowed5xx} in the listed exceptions)`,
  );
  console.log(`malformed error answers: ${counts.bad}, resets: ${counts.resets}, hangs: ${counts.hangs}, refused by the client library: ${counts.client}`);
  console.log(`server RSS: before ${mib(rssBefore)}, peak ${mib(rssPeak || undefined)}, after ${mib(rssAfter)}; /healthz after: ${alive}`);
  const shown = failures.slice(0, 20);
  for (const { req, out } of shown) console.log(`  [${out.kind}${out.status ? ` ${out.status}` : ""}] ${out.problem}\n      ${describe(req)}`);
  if (failures.length > shown.length) console.log(`  … and ${failures.length - shown.length} more`);
  server.child?.kill("SIGTERM");
  await dispatcher.close();
  return failures.length > 0 || !alive.startsWith("200") ? 1 : 0;
}

process.exitCode = await main();
