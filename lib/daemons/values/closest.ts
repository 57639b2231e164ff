/** "Did you mean": the known name closest to a mistyped one. */

/** Edit distance: a few dozen lines do not justify a dependency. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const cur = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur.push(Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost));
    }
    prev = cur;
  }
  return prev[b.length] as number;
}

/** The candidate closest to `name`, when it is close enough to be a plausible typo. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const d = editDistance(name, c);
    if (d < bestScore) [best, bestScore] = [c, d];
  }
  if (best === undefined) return undefined;
  return bestScore <= Math.max(2, Math.floor(best.length / 3)) || best.startsWith(name) || name.startsWith(best) ? best : undefined;
}
