// The progress panel shows the execution memory of the last checkpoint and the agent's own
// assessment of the criteria, labelled as reported, beside what the harness measured; a
// criterion the agent says is met while the harness's check says not is red and marked ≠.
// Whole frames, from a store folded from the log of a real run (scripted agent, real
// workspace and observer command).
import { vi, describe, test, expect, afterEach } from 'vitest';

vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import React from 'react';
import { render } from 'ink-testing-library';
import { stringify } from 'yaml';
import { drive, headlessAnswerer, newGoal, parsePolicy, ScriptedAgent, Session, type LoopEvent } from '../../src/engine/index.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import { ProgressPanel } from '../../src/ui/ProgressPanel.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { READ_ONLY_CONTROLLER } from '../support/ui-helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const CRITERIA = ['no failing test', 'the README says how'];

/** A run of three turns with a checkpoint every turn, stopped at stagnation; returns its log. */
async function runLog(assessments: unknown[]): Promise<LoopEvent[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-progress-memory-'));
  dirs.push(dir);
  const policy = parsePolicy(
    stringify({
      goal: { objective: 'fix it', success_criteria: CRITERIA },
      agent: { kind: 'scripted', script: 'x.yaml' },
      workspace: { path: '.', copy: 'none' },
      pattern: 'react',
      verify: [{ command: 'test -f done.txt' }],
      checkpoint: { every_iterations: 1 },
      observe: [{ name: 'tests', command: 'cat count.txt', parser: 'regex', pattern: 'failing: (?<failing>\\d+)' }],
      progress: { observed: [{ signal: 'observed.tests.failing', direction: 'decrease' }], assess: true },
      stagnation: { checkpoints_without_observed_progress: 3, on_detect: 'stop' },
    }),
    path.join(dir, 'loop.yaml'),
  );
  const shell = (id: string, command: string, report?: object) => ({ tool_calls: [{ id, name: 'shell', args: { command } }], ...(report ? { report } : {}) });
  const agent = ScriptedAgent.fromYaml(
    stringify({
      turns: [
        shell('a', "printf 'failing: 4' > count.txt", { remaining_hypotheses: ['cache', 'encoding'], new_evidence: [{ claim: 'the cache is stale', evidence_ref: 'cache.log' }] }),
        shell('b', "printf 'failing: 2' > count.txt; exit 2", { eliminated_hypotheses: ['cache'] }),
        shell('c', 'exit 2'),
        shell('d', 'true'),
      ],
      assessments,
    }),
  );
  const events: LoopEvent[] = [];
  let now = 1_700_000_000_000;
  const session = new Session({ id: 's1', agent, policy, workspace: dir, clock: () => (now += 1000), sinks: [(e) => events.push(e)] });
  await drive(session.run(newGoal('fix it', CRITERIA)), headlessAnswerer({ approve: 'all', onPause: 'stop' }));
  return events;
}

function frame(log: LoopEvent[]): { text: string; raw: string } {
  const { lastFrame, unmount } = render(
    <ConsoleProvider store={createConsoleStore(log)} controller={READ_ONLY_CONTROLLER}>
      <ProgressPanel height={16} width={100} />
    </ConsoleProvider>,
  );
  const raw = lastFrame() ?? '';
  unmount();
  // The request sizes depend on the tool outputs' exact text: the bars are kept, the numbers not.
  return { raw, text: raw.replace(/\u001b\[[0-9;]*m/g, '').replace(/█+ [\d.]+k? chars/g, '█ N chars') };
}

const MET = { answer: { criteria: [{ criterion: 1, verdict: 'met', reason: 'the suite is green' }, { criterion: 2, verdict: 'partly', reason: 'half of it' }] } };

describe('the progress panel: execution memory and the reported assessment', () => {
  test('shows the memory of the last checkpoint and the assessment beside the measurement, a disagreement marked in red', async () => {
    const log = await runLog([MET, MET, MET, MET]);
    const { text, raw } = frame(log);
    expect(text).toBe(
      [
        // The transcript runs out after turn 4: the run ends `failed`, said first.
        'failed      the agent failed: scripted:<transcript>: the transcript has 4 turns and turn 5 was',
        '            asked for',
        'workspace   as the agent left it: nothing stashed, no failure report',
        'pattern     react: one open-ended step, repeated until the verifier passes or a limit ends it',
        'laps        off (one long session)',
        'request this lap    █ N chars',
        'as one long session █ N chars',
        'workspace   file changes unknown · commits this run unknown',
        'assessment  reported by the agent at turn 4, not measured',
        '  ≠ no failing test · reported ✓ met: the suite is green · harness: not (tests.failing = 2)',
        '    the README says how · reported ~ partly: half of it · harness: not (tests.failing = 2)',
        'memory      checkpoint 5 · turn 4 · 1 evidence · 1 eliminated · 1 open · 2 failed',
        // ? : the baseline at the run start, before count.txt was written, measured nothing
        '            tests.failing ? → 4 → 2 → 2 → 2 (flat)',
        '            reported: the cache is stale [cache.log: not seen]',
        '            reported: eliminated cache · open encoding',
        '            failed: shell exit 2 · shell printf \'failing: 2\' > count.txt; exit 2',
      ].join('\n'),
    );
    // The disagreeing row is red and bold; the agreeing one is not.
    const rows = raw.split('\n');
    expect(rows[9]).toContain('\u001b[31m');
    expect(rows[9]).toContain('\u001b[1m');
    expect(rows[10]).not.toContain('\u001b[31m');
  }, 30_000);

  test('an answer that is not JSON is shown as unreadable with its head, and nothing as measured by it', async () => {
    const log = await runLog([MET, { answer: 'All met, trust me.' }, MET, { answer: 'All met, trust me.' }]);
    const { text } = frame(log);
    expect(text.split('\n')[8]).toBe('assessment  reported at turn 4: unreadable "All met, trust me." (not JSON (Unexpected token \'A\', "A…');
    // The memory is there all the same.
    expect(text.split('\n')[9]).toBe('memory      checkpoint 5 · turn 4 · 1 evidence · 1 eliminated · 1 open · 2 failed');
  }, 30_000);
});
