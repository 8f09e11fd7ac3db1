// Unknown is never "no progress" (docs/design.md, "Checkpoints and stagnation"): a checkpoint
// whose tracked signals could not be measured is UNKNOWN with the reason, keeps the stagnation
// counter, and two in a row raise `stagnation.on_unknown`. Real workspaces, real observer commands.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { drive, headlessAnswerer } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { Session } from '../../src/engine/session.js';
import type { CheckpointRecord } from '../../src/engine/types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-unknown-'));
  dirs.push(dir);
  return dir;
}

/** Five steps writing distinct files, then the file the verifier wants, then the claim. */
function agent(): ScriptedAgent {
  const write = (i: number, file = `f${i}.txt`) => ({ tool_calls: [{ id: `w${i}`, name: 'write_file', args: { path: file, content: String(i) } }] });
  return ScriptedAgent.fromYaml(stringify({ turns: [write(1), write(2), write(3), write(4), write(5, 'done.txt'), { final: 'fixed' }] }));
}

async function runWith(observe: Record<string, unknown>[], signals: string[], stagnation: Record<string, unknown> = {}, every = 1) {
  const dir = tempDir();
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'fix it' },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      pattern: 'react',
      verify: [{ command: 'test -f done.txt' }],
      hooks: [],
      checkpoint: { every_iterations: every },
      observe,
      progress: { observed: signals.map((signal) => ({ signal, direction: 'decrease' })) },
      stagnation: { checkpoints_without_observed_progress: 2, on_detect: 'stop', ...stagnation },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const session = new Session({ id: 's1', agent: agent(), policy, workspace: dir, clock: () => (now += 1000), sinks: [(e) => events.push(e)] });
  const outcome = await drive(session.run(newGoal('fix it')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  const checkpoints = events.flatMap((e) => (e.type === 'checkpoint.recorded' ? [e.data.checkpoint as CheckpointRecord] : []));
  const unknown = events.flatMap((e) => (e.type === 'checkpoint.unknown' ? [e.data] : []));
  return { outcome, checkpoints, unknown, events };
}

const tap = (command: string, extra: Record<string, unknown> = {}) => ({ name: 'tests', command, parser: 'tap', ...extra });

describe('a checkpoint that measured nothing', () => {
  it.each([
    ['the observer command is not found', tap('no-such-test-runner-xyz'), /observed\.tests\.failing: observer "tests" \(no-such-test-runner-xyz\): command not found \(exit 127\)/],
    ['the observer prints nothing', tap('true'), /observed\.tests\.failing: observer "tests" \(true\): no tap report in its output \(exit 0\)/],
    ['the observer times out', tap('sleep 5', { timeout: '1s' }), /observed\.tests\.failing: observer "tests" \(sleep 5\): timed out after 1s/, 2],
    [
      'the metric is missing from what the observer printed',
      { name: 'lint', command: 'echo "warnings: none"', parser: 'regex', pattern: 'errors: (?<errors>\\d+)' },
      /observed\.lint\.errors: observer "lint" \(echo "warnings: none"\)/,
    ],
    // Nothing tracked at all: nothing measured is not "no progress" either (stagnation would stop this run at its third checkpoint).
    ['no observer is declared', null, /nothing is tracked: no `observe` command, or no `progress\.observed` signal/],
    ['an observer but no progress.observed signal', tap("printf '# pass 1\\n# fail 1\\n'"), /nothing is tracked/],
  ])('is UNKNOWN with why when %s, never stagnation; two in a row alert', async (_case, observer, why, every = 1) => {
    const signal = (observer as { name: string } | null)?.name === 'lint' ? 'observed.lint.errors' : 'observed.tests.failing';
    const tracked = observer === null || _case.includes('no progress.observed') ? [] : [signal];
    const { outcome, checkpoints, unknown } = await runWith(observer === null ? [] : [observer], tracked, {}, every);
    expect(outcome.reason).toBe('goal_met');
    expect(checkpoints.map((c) => [c.status, c.counter, c.stagnation_detected])).toEqual(checkpoints.map(() => ['UNKNOWN', 0, false]));
    // The baseline taken at the start measured nothing too, but does not count in the row.
    const [baseline, ...interval] = checkpoints;
    expect(baseline).toMatchObject({ baseline: true, iteration: 0 });
    expect(baseline!.unknown_in_row).toBeUndefined();
    expect(interval.length).toBeGreaterThanOrEqual(2);
    expect(interval.map((c) => c.unknown_in_row)).toEqual(interval.map((_, i) => i + 1));
    for (const c of checkpoints) expect(c.unknown_why).toMatch(why);
    // The alert of its own, from the second interval UNKNOWN in a row on (default on_unknown: alert).
    expect(unknown.map((u) => [u.in_row, u.action])).toEqual(interval.slice(1).map((_, i) => [i + 2, 'alert']));
    expect(unknown[0]!.why).toMatch(why);
  }, 20_000);

  it('keeps the counter where it was: an unmeasured checkpoint between two flat ones neither resets nor advances it', async () => {
    const dir = tempDir();
    // Flat at 3 at the start and on iterations 1, 2, 4, 5; the observer breaks on iteration 3.
    const command = `n=$(ls ${dir.replace(/'/g, '')}/f*.txt 2>/dev/null | wc -l); if [ "$n" = 3 ]; then exit 127; fi; printf 'not ok 1 - a\\nnot ok 2 - b\\nnot ok 3 - c\\n1..3\\n# pass 0\\n# fail 3\\n'`;
    const policy = parsePolicy(
      stringify({
        goal: { objective: 'fix it' },
        agent: { kind: 'scripted', script: 'x.yaml' },
        workspace: { path: '.', copy: 'none' },
        pattern: 'react',
        verify: [{ command: 'test -f done.txt' }],
        hooks: [],
        checkpoint: { every_iterations: 1 },
        observe: [tap(command)],
        progress: { observed: [{ signal: 'observed.tests.failing', direction: 'decrease' }] },
        stagnation: { checkpoints_without_observed_progress: 3, on_detect: 'alert' },
      }),
      path.join(dir, 'loop.yaml'),
    );
    const events: LoopEvent[] = [];
    let now = 1_700_000_000_000;
    const session = new Session({ id: 's1', agent: agent(), policy, workspace: dir, clock: () => (now += 1000), sinks: [(e) => events.push(e)] });
    await drive(session.run(newGoal('fix it')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
    const checkpoints = events.flatMap((e) => (e.type === 'checkpoint.recorded' ? [e.data.checkpoint] : []));
    expect(checkpoints.slice(0, 6).map((c) => [c.iteration, c.status, c.counter])).toEqual([
      [0, 'BASELINE', 0],
      [1, 'NO_OBSERVED_PROGRESS', 1],
      [2, 'NO_OBSERVED_PROGRESS', 2],
      [3, 'UNKNOWN', 2],
      [4, 'NO_OBSERVED_PROGRESS', 3],
      [5, 'NO_OBSERVED_PROGRESS', 4],
    ]);
    expect(events.filter((e) => e.type === 'checkpoint.unknown')).toHaveLength(0);
  }, 20_000);

  it('takes the baseline at the first checkpoint that measures something', async () => {
    const dir = tempDir();
    const command = `if [ ! -f ${dir}/f2.txt ]; then exit 0; fi; printf 'not ok 1 - a\\nok 2 - b\\n1..2\\n# pass 1\\n# fail 1\\n'`;
    const { checkpoints } = await (async () => {
      const policy = parsePolicy(
        stringify({
          goal: { objective: 'fix it' },
          agent: { kind: 'scripted', script: 'x.yaml' },
          workspace: { path: '.', copy: 'none' },
          pattern: 'react',
          verify: [{ command: 'test -f done.txt' }],
          hooks: [],
          checkpoint: { every_iterations: 1 },
          observe: [tap(command)],
          progress: { observed: [{ signal: 'observed.tests.failing', direction: 'decrease' }] },
          stagnation: { checkpoints_without_observed_progress: 5 },
        }),
        path.join(dir, 'loop.yaml'),
      );
      const events: LoopEvent[] = [];
      const session = new Session({ id: 's1', agent: agent(), policy, workspace: dir, clock: () => 1, sinks: [(e) => events.push(e)] });
      await drive(session.run(newGoal('fix it')), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
      return { checkpoints: events.flatMap((e) => (e.type === 'checkpoint.recorded' ? [e.data.checkpoint] : [])) };
    })();
    // Nothing measured at the start (the run's baseline) nor at iteration 1: the baseline is iteration 2.
    expect(checkpoints.slice(0, 4).map((c) => [c.iteration, c.status, c.counter])).toEqual([
      [0, 'UNKNOWN', 0],
      [1, 'UNKNOWN', 0],
      [2, 'BASELINE', 0],
      [3, 'NO_OBSERVED_PROGRESS', 1],
    ]);
  }, 20_000);

  it.each([
    ['pause', 'stopped'],
    ['stop', 'stopped'],
  ])('on_unknown: %s acts at the second UNKNOWN in a row and never stashes', async (action, reason) => {
    const { outcome, checkpoints, unknown, events } = await runWith([tap('no-such-test-runner-xyz')], ['observed.tests.failing'], { on_unknown: action });
    expect(outcome.reason).toBe(reason);
    const said = action === 'pause' ? events.flatMap((e) => (e.type === 'session.pause' ? [e.data.prompt] : [])).join('\n') : outcome.summary;
    expect(said).toMatch(/UNKNOWN: 2 checkpoints in a row measured none of the tracked signals \(observed\.tests\.failing: observer "tests" \(no-such-test-runner-xyz\): command not found/);
    // The baseline and two interval checkpoints measured nothing: the second interval one acts.
    expect(checkpoints.map((c) => [c.iteration, c.status, c.unknown_in_row])).toEqual([
      [0, 'UNKNOWN', undefined],
      [1, 'UNKNOWN', 1],
      [2, 'UNKNOWN', 2],
    ]);
    expect(unknown.map((u) => [u.in_row, u.action])).toEqual([[2, action]]);
    expect(events.some((e) => e.type === 'abort.recorded')).toBe(false);
  }, 20_000);
});
