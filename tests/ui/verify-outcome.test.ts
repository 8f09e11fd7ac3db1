// A verify command's outcome as the timeline and the progress panel say it: its exit code,
// or why it has none (loopdeck killed it), never `null`.
import os from 'node:os';
import { describe, expect, test } from 'vitest';
import type { LoopEvent } from '../../src/engine/events.js';
import { runVerify } from '../../src/engine/verify.js';
import { describeEvent, verifyOutcome } from '../../src/ui/describe.js';

const verifyEvent = (commands: Awaited<ReturnType<typeof runVerify>>['commands']): LoopEvent =>
  ({ seq: 9, at: 0, session: 's', type: 'verify.result', data: { passed: false, trigger: 'claim', commands } }) as unknown as LoopEvent;

describe('a verify command in the timeline', () => {
  test('one that timed out reads "timed out after 1s", one that exited reads its code', async () => {
    const { commands } = await runVerify(
      [
        { command: 'sleep 5', timeout: 1 },
        { command: 'exit 3', timeout: 10 },
      ],
      os.tmpdir(),
    );
    expect(commands.map(verifyOutcome)).toEqual(['timed out after 1s', '3']);
    expect(describeEvent(verifyEvent(commands))).toBe('verify failed: sleep 5 → timed out after 1s, exit 3 → 3');
  });

  test('one with no exit code and no reason of loopdeck\'s reads "no exit code", whatever its output starts with', () => {
    for (const output of ['', 'Segmentation fault', 'timed out after a while, said the test']) expect(verifyOutcome({ exit_code: null, output })).toBe('no exit code');
  });
});
