/**
 * Splits one string into arguments as a POSIX shell would, for command lines pasted whole
 * (`--node-agent "--runonce --enable-server=false"`): blanks separate, single quotes keep
 * everything, double quotes keep all but `\"`, `\\`, `\$` and `` \` ``, a backslash outside
 * quotes keeps the next character, and backslash-newline (a unit file's line continuation)
 * disappears. No expansion of any kind. A few dozen lines, and the brief's dependency
 * list is fixed, so no shell-parsing package.
 */
export class ShellSyntaxError extends Error {}

export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) throw new ShellSyntaxError(`unterminated single quote in: ${text}`);
      word += text.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (ch === '"') {
      i += 1;
      for (;;) {
        if (i >= text.length) throw new ShellSyntaxError(`unterminated double quote in: ${text}`);
        const c = text[i] as string;
        if (c === '"') break;
        if (c === "\\" && i + 1 < text.length && '"\\$`\n'.includes(text[i + 1] as string)) {
          if (text[i + 1] !== "\n") word += text[i + 1];
          i += 2;
          continue;
        }
        word += c;
        i += 1;
      }
      inWord = true;
      i += 1;
    } else if (ch === "\\") {
      if (i + 1 >= text.length) throw new ShellSyntaxError(`trailing backslash in: ${text}`);
      if (text[i + 1] !== "\n") {
        word += text[i + 1];
        inWord = true;
      }
      i += 2;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i += 1;
    } else {
      word += ch;
      inWord = true;
      i += 1;
    }
  }
  if (inWord) words.push(word);
  return words;
}
