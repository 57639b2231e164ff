import { describe, expect, it } from "vitest";
import { ShellSyntaxError, shellWords } from "../../lib/daemons/shell-words.js";

describe("shellWords", () => {
  it("splits on blanks and keeps quoted text together", () => {
    expect(shellWords("  --a=1   --b 2\t--c\n--d ")).toEqual(["--a=1", "--b", "2", "--c", "--d"]);
    expect(shellWords(`--node-labels='a=b c' --x="say \\"hi\\" \\$HOME" 'it''s'`)).toEqual(["--node-labels=a=b c", '--x=say "hi" $HOME', "its"]);
    expect(shellWords(`--empty="" --also=''`)).toEqual(["--empty=", "--also="]);
    expect(shellWords(`a\\ b c`)).toEqual(["a b", "c"]);
    expect(shellWords(`"\\n stays"`)).toEqual(["\\n stays"]);
  });

  it("joins backslash-newline continuations, as in a unit file", () => {
    expect(shellWords("kubelet \\\n  --v=2 \\\n  --max-pods=200")).toEqual(["kubelet", "--v=2", "--max-pods=200"]);
  });

  it("refuses unterminated quotes and a trailing backslash", () => {
    for (const bad of [`--a='x`, `--a="x`, `--a=x\\`]) expect(() => shellWords(bad), bad).toThrow(ShellSyntaxError);
  });

  it("returns nothing for blank input", () => {
    expect(shellWords("")).toEqual([]);
    expect(shellWords("   ")).toEqual([]);
  });
});
