/**
 * The single-file HTML report, made by the Allure 3 generator from allure-results. The
 * generator hard-codes a Google Analytics tag (toolchain.md gotcha 8); we strip it so the
 * report makes no external request when opened.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const ANALYTICS = /<script async src="https:\/\/www\.googletagmanager\.com\/gtag\/js[^"]*"><\/script>\s*<script>[\s\S]*?gtag\('config'[\s\S]*?<\/script>/;

function stripAnalytics(html: string): string {
  const out = html.replace(ANALYTICS, "");
  if (/googletagmanager/.test(out)) throw new Error("the Allure report still contains an analytics tag after stripping");
  return out;
}

/** The allure CLI script; its package exports no package.json, so walk up from the entry point. */
function allureBin(): string {
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve("allure"));
  while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir);
  const pkgPath = join(dir, "package.json");
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as { bin?: string | Record<string, string> };
  const rel = typeof pkg.bin === "string" ? pkg.bin : pkg.bin?.allure;
  if (!rel) throw new Error("the allure package has no allure binary");
  return join(dirname(pkgPath), rel);
}

/** Writes `<outDir>/index.html` from `resultsDir`; returns its path. */
export function writeHtmlReport(resultsDir: string, outDir: string, name: string): string {
  const tmp = join(outDir, ".allure-report");
  rmSync(tmp, { recursive: true, force: true });
  const res = spawnSync(process.execPath, [allureBin(), "awesome", resultsDir, "-o", tmp, "--single-file", "--name", name, "--group-by", "epic,feature"], {
    encoding: "utf8",
    env: { ...process.env, ALLURE_NO_ANALYTICS: "true" },
  });
  const built = join(tmp, "index.html");
  if (res.status !== 0 || !existsSync(built)) {
    throw new Error(`allure report generation failed: ${(res.stderr || res.stdout || "").trim().split("\n").slice(-3).join(" ")}`);
  }
  const target = join(outDir, "index.html");
  writeFileSync(built, stripAnalytics(readFileSync(built, "utf8")));
  renameSync(built, target);
  rmSync(tmp, { recursive: true, force: true });
  return target;
}
