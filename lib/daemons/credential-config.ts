/**
 * doc3: `--image-credential-provider-config` names a plugin config file (JSON, YAML or YML) or
 * a directory of them, merged in lexicographic order and not recursively. The checker runs on
 * the operator's machine, where the directory usually is, so it can show the order the node
 * agent will use and what it will not read. Only the directory listing is needed; the files
 * themselves are not parsed here.
 */
import { readdirSync, statSync } from "node:fs";

export interface DirEntry {
  name: string;
  isDirectory: boolean;
}

export interface MergePlan {
  /** Files read, in merge order. */
  merged: string[];
  /** Entries the node agent does not read, with why. */
  ignored: { name: string; why: string }[];
}

const CONFIG_EXTENSIONS = new Set([".json", ".yaml", ".yml"]);

function extensionOf(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot);
}

/** Byte order of the UTF-8 names, as a Go string sort gives it (not JavaScript's UTF-16 order). */
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

export function credentialConfigMergePlan(entries: readonly DirEntry[]): MergePlan {
  const merged: string[] = [];
  const ignored: MergePlan["ignored"] = [];
  for (const e of entries) {
    if (e.isDirectory) ignored.push({ name: `${e.name}/`, why: "a subdirectory: the directory is not read recursively" });
    else if (!CONFIG_EXTENSIONS.has(extensionOf(e.name))) ignored.push({ name: e.name, why: "not a .json, .yaml or .yml file" });
    else merged.push(e.name);
  }
  merged.sort(byBytes);
  ignored.sort((a, b) => byBytes(a.name, b.name));
  return { merged, ignored };
}

/** The directory's entries, or undefined when `path` is not a readable directory on this machine. */
export function readDirEntries(path: string): DirEntry[] | undefined {
  try {
    if (!statSync(path).isDirectory()) return undefined;
    return readdirSync(path, { withFileTypes: true }).map((d) => ({ name: d.name, isDirectory: d.isDirectory() }));
  } catch {
    return undefined;
  }
}
