// A run's id, made before anything heavy is loaded: the console's outline shows it
// (src/ui/outline.ts) and the run gets the same one (prepareRun's `id`).

/** A session id from the clock and a few random letters: `20261129-203312-k3f9`. */
export function newSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}
