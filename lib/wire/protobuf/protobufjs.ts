/**
 * protobufjs, loaded on first use: the codec and the schema need it only for a protobuf body,
 * and loading it (with the schema's parse) cost every emulator start about 0.1 s.
 */
import { createRequire } from "node:module";

type Protobufjs = typeof import("protobufjs");
/** protobufjs/minimal's types are the whole library's (minimal.d.ts re-exports index.d.ts). */
type Minimal = Pick<Protobufjs, "Reader" | "Writer">;
let loaded: Protobufjs | undefined;
let minimal: Minimal | undefined;

export function protobufjs(): Protobufjs {
  loaded ??= createRequire(import.meta.url)("protobufjs") as Protobufjs;
  return loaded;
}

/** Its Reader and Writer alone (the same classes): all the codec needs once the table is built. */
export function protobufjsMinimal(): Minimal {
  minimal ??= createRequire(import.meta.url)("protobufjs/minimal") as Minimal;
  return minimal;
}
