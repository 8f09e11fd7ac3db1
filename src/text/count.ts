/**
 * A count and its noun in agreement: `1 iteration`, `3 iterations`, `1 reply`, `2 replies`
 * (the plural given when it is not the noun and an `s`). For every count the console and
 * the command line print, so none reads `1 iterations` or `step(s)`.
 */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
