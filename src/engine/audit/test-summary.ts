/**
 * Test results in a tool's output as a person reads them: the summary line test runners
 * print (`=== 1 failed, 11 passed in 0.4s ===` from pytest, `Tests: 1 failed, 11 passed`
 * from Jest, `Tests  1 failed | 11 passed` from Vitest, `test result: FAILED. 11 passed;
 * 1 failed` from cargo, `1 failing` from mocha, `# fail 1` from TAP). Used by `audit` on the
 * agent's own tool outputs, where no structured report exists.
 */

/** Failing and passing tests of one run; `passing` is `null` when the line does not say. */
export interface TestSummary {
  failing: number;
  passing: number | null;
}

const COUNT = /\b(\d+)\s+(passed|passing|failed|failing|errors?|pass|fail)\b/gi;
const TAP = /^#\s+(pass|fail)\s+(\d+)\s*$/gim;

/**
 * The summary of the last line of `output` that counts tests, or `null` when none does
 * (a missing measurement, never "0 failing").
 */
export function testSummary(output: string): TestSummary | null {
  const tap = [...output.matchAll(TAP)];
  if (tap.length > 0) {
    const fail = tap.filter((m) => m[1]!.toLowerCase() === 'fail').at(-1);
    const pass = tap.filter((m) => m[1]!.toLowerCase() === 'pass').at(-1);
    return { failing: fail ? Number(fail[2]) : 0, passing: pass ? Number(pass[2]) : null };
  }
  const lines = output.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const counts = [...lines[i]!.matchAll(COUNT)];
    if (counts.length === 0) continue;
    let failing = 0;
    let passing: number | null = null;
    for (const m of counts) {
      const n = Number(m[1]);
      if (/^pass/i.test(m[2]!)) passing = (passing ?? 0) + n;
      else failing += n;
    }
    return { failing, passing };
  }
  return null;
}
