// When an alert's condition has cleared (docs/design.md, "Alerts and when they clear"):
// decided by the fold from the events after the alert, for every kind of alert, and once
// cleared it stays cleared until a new detection raises a new alert. Each case runs a real
// session (scripted agent, real observers and tools in a temporary workspace) and folds
// its log, cut at the point a person would look at the banner.
import { describe, expect, it } from 'vitest';
import { fold, type Alert } from '../../src/engine/fold.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { runHeadless } from '../support/console-rig.js';

/** The alerts of the log folded up to (not including) its first event of `type`, or of the whole log. */
function alertsBefore(events: readonly LoopEvent[], type: LoopEvent['type'] | null = null): readonly Alert[] {
  const cut = type === null ? -1 : events.findIndex((e) => e.type === type);
  return fold(cut < 0 ? events : events.slice(0, cut)).alerts;
}

/** Each alert as kind, its clearing reason (or `null`) and the type of the event that cleared it. */
function summary(events: readonly LoopEvent[], alerts: readonly Alert[]): Array<[string, string | null, string | null]> {
  return alerts.map((a) => [a.kind, a.cleared?.why ?? null, a.cleared ? events.find((e) => e.seq === a.cleared!.seq)!.type : null]);
}

/** A tap observer reading the failing count from `fail.txt` (2 until the agent writes it). */
const FAILING = [{ name: 'tests', command: `printf '# pass 1\\n# fail %s\\n' "$(cat fail.txt 2>/dev/null || echo 2)"` }];
const FAILING_SIGNAL = [{ signal: 'observed.tests.failing', direction: 'decrease' as const }];

const read = (id: string, path = 'greet.js') => `      - { id: ${id}, name: read_file, args: { path: ${path} } }`;

describe('a stagnation alert', () => {
  it('clears at the checkpoint that observed progress and stays cleared through a later checkpoint without progress', async () => {
    const transcript = `
turns:
  - thought: look
    tool_calls:
${read('c1')}
  - thought: look again
    tool_calls:
${read('c2', 'README.md')}
  - thought: fix one
    tool_calls:
      - { id: c3, name: write_file, args: { path: fail.txt, content: "1" } }
  - thought: look once more
    tool_calls:
${read('c4')}
  - final: done
`;
    const { events } = await runHeadless(transcript, { every: 1, threshold: 2, onDetect: 'alert', observe: FAILING, signals: FAILING_SIGNAL, allow: ['read_file', 'write_file'] });
    const statuses = events.flatMap((e) => (e.type === 'checkpoint.recorded' ? [`${e.data.checkpoint.status} ${e.data.checkpoint.counter}`] : []));
    expect(statuses).toEqual(['BASELINE 0', 'NO_OBSERVED_PROGRESS 1', 'NO_OBSERVED_PROGRESS 2', 'PROGRESS_OBSERVED 0', 'NO_OBSERVED_PROGRESS 1']);
    // Before the run ends (a met goal clears everything): the progress at #4 cleared it, and #5 did not bring it back.
    expect(summary(events, alertsBefore(events, 'session.complete'))).toEqual([['stagnation', 'progress observed at checkpoint #4 (turn 3)', 'checkpoint.recorded']]);
    // The met goal does not rewrite why it cleared.
    expect(summary(events, alertsBefore(events))).toEqual([['stagnation', 'progress observed at checkpoint #4 (turn 3)', 'checkpoint.recorded']]);
  });

  it('one that never cleared clears when the goal is met', async () => {
    const transcript = `
turns:
  - thought: look
    tool_calls:
${read('c1')}
  - thought: look again
    tool_calls:
${read('c2')}
  - final: done
`;
    const { events } = await runHeadless(transcript, { every: 1, threshold: 2, onDetect: 'alert', observe: FAILING, signals: FAILING_SIGNAL, allow: ['read_file'] });
    expect(summary(events, alertsBefore(events, 'session.complete'))).toEqual([['stagnation', null, null]]);
    expect(summary(events, alertsBefore(events))).toEqual([['stagnation', 'the goal was met', 'session.complete']]);
  });
});

describe('an UNKNOWN alert', () => {
  it('clears at the first checkpoint that measured again and stays cleared through one UNKNOWN checkpoint after it', async () => {
    const transcript = `
turns:
  - thought: a
    tool_calls:
${read('c1')}
  - thought: b
    tool_calls:
${read('c2')}
  - thought: measure
    tool_calls:
      - { id: c3, name: write_file, args: { path: m.txt, content: "# pass 1\\n# fail 1\\n" } }
  - thought: unmeasure
    tool_calls:
      - { id: c4, name: write_file, args: { path: m.txt, content: "nothing\\n" } }
  - final: done
`;
    const { events } = await runHeadless(transcript, {
      every: 1,
      threshold: 10,
      observe: [{ name: 'm', command: 'cat m.txt 2>/dev/null' }],
      signals: FAILING_SIGNAL.map((s) => ({ ...s, signal: 'observed.m.failing' })),
      allow: ['read_file', 'write_file'],
    });
    const records = events.flatMap((e) => (e.type === 'checkpoint.recorded' ? [e.data.checkpoint] : []));
    expect(records.map((r) => r.status)).toEqual(['UNKNOWN', 'UNKNOWN', 'UNKNOWN', 'BASELINE', 'UNKNOWN']);
    expect(events.filter((e) => e.type === 'checkpoint.unknown')).toHaveLength(1);
    expect(summary(events, alertsBefore(events, 'session.complete'))).toEqual([['unknown', 'checkpoint #4 (turn 3) measured again', 'checkpoint.recorded']]);
  });
});

describe('a constraint alert', () => {
  it('clears at the checkpoint that found the constraint kept; a violation found again is a new alert', async () => {
    const transcript = `
turns:
  - thought: break it
    tool_calls:
      - { id: c1, name: write_file, args: { path: README.md, content: "gone\\n" } }
  - thought: still broken
    tool_calls:
${read('c2')}
  - thought: restore it
    tool_calls:
      - { id: c3, name: write_file, args: { path: README.md, content: "# greeter\\n\\nSays hello.\\n" } }
  - thought: look
    tool_calls:
${read('c4')}
  - final: done
`;
    const { events } = await runHeadless(transcript, {
      every: 1,
      threshold: 10,
      constraints: [{ text: 'README says hello', command: 'grep -q "Says hello" README.md' }],
      onViolation: 'alert',
      // Measured, so no checkpoint is UNKNOWN: only the constraint raises alerts here.
      observe: FAILING,
      signals: FAILING_SIGNAL,
      allow: ['read_file', 'write_file'],
    });
    expect(events.filter((e) => e.type === 'constraint.violated').map((e) => (e.type === 'constraint.violated' ? e.data.iteration : 0))).toEqual([1, 2]);
    // Turn 1's alert is joined by turn 2's (the same constraint found broken again); turn 3's checkpoint found it kept.
    expect(summary(events, alertsBefore(events, 'session.complete'))).toEqual([
      ['constraint', 'checkpoint #4 (turn 3) found it kept', 'checkpoint.recorded'],
      ['constraint', 'checkpoint #4 (turn 3) found it kept', 'checkpoint.recorded'],
    ]);
  });
});

describe('a repetition alert, by the guard\'s own rule', () => {
  it('a repeat clears once the repeated call is in the last window − 1 calls fewer than threshold − 1 times', async () => {
    // Window 5, threshold 3: c3 is the third read of v.txt. After c4, c5 the last 4 calls still hold it twice
    // (one more would be detected); after c6 once.
    const transcript = `
turns:
${['c1', 'c2', 'c3'].map((id) => `  - thought: read\n    tool_calls:\n${read(id, 'README.md')}`).join('\n')}
  - thought: other 1
    tool_calls:
${read('c4')}
  - thought: other 2
    tool_calls:
      - { id: c5, name: list_files, args: {} }
  - thought: other 3
    tool_calls:
      - { id: c6, name: list_files, args: { path: . } }
  - final: done
`;
    const { events } = await runHeadless(transcript, { every: 10, repetition: { window: 5, threshold: 3, on_detect: 'pause' }, allow: ['read_file', 'list_files'] });
    const calls = events.filter((e) => e.type === 'tool.call');
    const at = (id: string) => events.slice(0, events.indexOf(calls.find((e) => e.type === 'tool.call' && e.data.call.id === id)!) + 1);
    expect(summary(events, fold(at('c5')).alerts)).toEqual([['repetition', null, null]]);
    expect(summary(events, fold(at('c6')).alerts)).toEqual([
      ['repetition', 'read_file call 1× in the last 4 calls: one more stays under 3 in 5', 'tool.call'],
    ]);
    // The alert names the call the pause was about.
    expect(fold(at('c6')).alerts[0]!.call).toMatchObject({ id: 'c3', name: 'read_file', args: { path: 'README.md' } });
  });

  it('a cycle clears at the first call that does not continue its block, not before', async () => {
    const a = (id: string) => `  - thought: a\n    tool_calls:\n${read(id, 'README.md')}`;
    const b = (id: string) => `  - thought: b\n    tool_calls:\n${read(id)}`;
    const transcript = `
turns:
${[a('a1'), b('b1'), a('a2'), b('b2'), a('a3'), b('b3'), a('a4'), b('b4')].join('\n')}
  - thought: something else
    tool_calls:
      - { id: x1, name: list_files, args: {} }
  - final: done
`;
    const { events } = await runHeadless(transcript, { every: 20, repetition: { window: 4, threshold: 3, on_detect: 'alert' }, allow: ['read_file', 'list_files'] });
    const detections = events.filter((e) => e.type === 'repetition.detected');
    expect(detections.map((e) => (e.type === 'repetition.detected' ? [e.data.kind, e.data.calls.at(-1)!.id] : []))).toEqual([
      ['cycle', 'b3'],
      ['cycle', 'a4'],
      ['cycle', 'b4'],
    ]);
    const upTo = (id: string) => fold(events.slice(0, events.findIndex((e) => e.type === 'tool.call' && e.data.call.id === id) + 1)).alerts;
    expect(upTo('b4').every((alert) => alert.cleared === undefined)).toBe(true);
    expect(summary(events, upTo('x1'))).toEqual(Array.from({ length: 3 }, () => ['repetition', 'the cycle of 2 calls was broken by a list_files call', 'tool.call']));
  });
});
