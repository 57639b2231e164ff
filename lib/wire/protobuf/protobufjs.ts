/**
 * protobufjs, loaded on first use: the codec and the schema need it only for a protobuf body,
 * and loading it (with the schema's parse) cost every emulator start about 0.1 s.
 */
import { createRequire } from "node:module";

type Protobufjs = typeof import("protobufjs");
let loaded: Protobufjs | undefined;

export function protobufjs(): Protobufjs {
  loaded ??= createRequire(import.meta.url)("protobufjs") as Protobufjs;
  return loaded;
}
