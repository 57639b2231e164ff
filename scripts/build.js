// `npm run build` (and npm's prepare step, run by `npm ci` and `npm install`): lib/ and fixtures/
// compiled to dist/, then the stamp bin/tollgate.js compares the sources' times with.
import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
rmSync(dist, { recursive: true, force: true });
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
execFileSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { stdio: "inherit", cwd: root });
await bundleEmulatorCommand();
await precomputeProtobufTable();
writeFileSync(join(dist, ".built"), `${new Date().toISOString()}\n`);

/*
 * `tollgate emulator` loads about 220 modules of lib/; Node 20 resolves, reads and links each
 * ES module on its own, which was about half of the command's start (docs/performance.md). So
 * its compiled module, dist/lib/cli/emulator.js, is replaced by one file holding its whole graph
 * of lib/ and fixtures/ (what it imports only on demand goes into chunks beside it, loaded as
 * before). Packages stay imports. The modules main.js also loads stay separate, so the process
 * has one copy of each (UsageError is matched by class). Every other command, and every other
 * user of dist/, loads the compiled modules as they are. The files stay in dist/lib/cli/:
 * lib/project-root.ts finds the project from wherever a module is.
 */
async function bundleEmulatorCommand() {
  const { rolldown } = await import("rolldown");
  const cli = join(dist, "lib", "cli");
  const shared = new Set([join(cli, "usage.js"), join(dist, "lib", "tool-version.js"), join(dist, "lib", "project-root.js")]);
  const bundle = await rolldown({
    input: { emulator: join(cli, "emulator.js") },
    platform: "node",
    logLevel: "warn",
    plugins: [
      {
        name: "tollgate-externals",
        resolveId(source, importer) {
          // Packages and node: built-ins are imported at run time, as before.
          if (!source.startsWith(".") && !source.startsWith("/")) return { id: source, external: true };
          const path = importer ? join(dirname(importer), source) : source;
          // An absolute id is written relative to the chunk that imports it.
          return shared.has(path) ? { id: path, external: true } : null;
        },
      },
    ],
  });
  // The graph is read by now: the entry's compiled file is overwritten in place.
  await bundle.write({ dir: cli, format: "esm", entryFileNames: "[name].js", chunkFileNames: "emulator-[name]-[hash].js" });
  await bundle.close();
}

/*
 * The protobuf codec's descriptor table is pure data made from the schema text by protobufjs
 * (about 0.1 s at the first protobuf body): the compiled copy reads it from this file instead,
 * made by the compiled module itself (lib/wire/protobuf/descriptors.ts).
 */
async function precomputeProtobufTable() {
  const descriptors = await import(pathToFileURL(join(dist, "lib", "wire", "protobuf", "descriptors.js")).href);
  writeFileSync(join(dist, descriptors.PRECOMPUTED_FILE), JSON.stringify(descriptors.descriptorTableData()));
}
