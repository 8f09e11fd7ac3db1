// Whole frames of the console: what the run waits on (the model against its time and
// silence limits, a retry's countdown, a tool against its limit) on the status line, and a
// model's reported reasoning dimmed in the timeline and the event detail, apart from its answer.
import { vi, describe, test, expect, beforeAll } from 'vitest';

vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});

import type { EventDataMap, LoopEvent } from '../../src/engine/index.js';
import type { RunWait } from '../../src/engine/run/wait-guard.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { KEY, runHeadless, waitUntil } from '../support/console-rig.js';
import { renderStore } from '../support/ui-helpers.js';

let base: LoopEvent[];
beforeAll(async () => {
  base = (
    await runHeadless(`
turns:
  - thought: Look around.
    tool_calls:
      - { id: t1, name: shell, args: { command: "echo hi" } }
  - final: Done.
`)
  ).events;
});

/** Dim on (SGR 2) right before `text`, as Ink writes `dimColor`. */
const dimmed = (text: string) => new RegExp(`\\u001b\\[2m[^\\u001b]*${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`);

describe('what the run waits on, on the status line', () => {
  test('the model: time against request_timeout, silence against stream_idle_timeout; then a retry; then a tool; then nothing', async () => {
    const store = createConsoleStore(base.slice(0, 12));
    const c = await renderStore(store, { columns: 120, rows: 30 });
    const now = Date.now();
    const model: RunWait = {
      kind: 'model',
      agent: 'openai:m',
      since: now - 72_000,
      model: { since: now - 72_000, limit_ms: 600_000, active_at: now - 40_000, idle_ms: 120_000 },
    };
    store.getState().setWait(model);
    const frame = await c.waitForFrame(/waiting for model 1m1[23]s of 10m \(idle 4[01]s of 2m\)/);
    // One row of the frame, among the others.
    expect(frame.split('\n').filter((row) => row.includes('waiting for model'))).toHaveLength(1);

    store.getState().setWait({ ...model, model: { ...model.model!, retry: { until: Date.now() + 20_500, reason: '429 Too Many Requests: slow down', retry_after: true } } });
    await c.waitForFrame(/retrying in (20|19)s \(Retry-After\): 429 Too Many Requests: slow down/);

    store.getState().setWait({ kind: 'tool', name: 'shell', call_id: 't1', since: Date.now() - 12_000, limit_ms: 120_000 });
    await c.waitForFrame(/waiting for tool shell 1[23]s of 2m/);

    store.getState().setWait(null);
    await waitUntil(() => !c.frame().includes('waiting for'), 'the wait to leave the status line');
  });
});

/** `base` up to its last turn's end, then a turn that reports reasoning, then the rest. */
function withReasoning(reasoning: string): LoopEvent[] {
  const at = base.findLastIndex((e) => e.type === 'model.call');
  const last = base[at]!;
  const data: EventDataMap['model.call'] = {
    ...(last as Extract<LoopEvent, { type: 'model.call' }>).data,
    response: { final: 'Done.', thought: 'Checked the file.', reasoning, tool_calls: [], usage: { input_tokens: 10, output_tokens: 5 } },
  };
  return base.map((e, i) => (i === at ? ({ ...e, data } as LoopEvent) : e));
}

describe("a model's reasoning", () => {
  test('is dimmed after the answer in its timeline row, and in its own dimmed section of the event detail', async () => {
    const events = withReasoning('The file exists,\nso the goal is met.');
    const seq = events.find((e) => e.type === 'model.call' && e.data.response.reasoning)!.seq;
    const c = await renderStore(createConsoleStore(events), { columns: 120, rows: 40 });
    const frame = await c.waitForFrame('claims done: Done.');
    const row = frame.split('\n').find((r) => r.includes('claims done: Done.'))!;
    expect(row).toMatch(/turn 2: claims done: Done\. \(0\+0 tok\) · reasoning: The file exists, so the goal is met\./);
    // The answer is not dimmed; the reasoning is.
    expect(c.lastFrame()).toMatch(dimmed(' · reasoning: The file exists'));
    expect(c.lastFrame()).not.toMatch(dimmed('claims done: Done.'));

    // Select the row (↑ from the newest) and open it.
    const rows = frame.split('\n').filter((r) => /^[ !] {0,3}\d+ \S/.test(r));
    const fromEnd = rows.length - 1 - rows.findIndex((r) => r.includes('claims done'));
    for (let i = 0; i < fromEnd; i++) await c.press(KEY.up);
    await c.press(KEY.enter);
    const detail = await c.waitForFrame(`── Event #${seq} model.call`);
    expect(detail).toContain('"final": "Done."');
    expect(detail).not.toContain('"reasoning"');
    expect(detail).toContain('reasoning (reported by the model, not observed):');
    const said = detail.split('\n').findIndex((r) => r.includes('reasoning (reported by the model'));
    expect(detail.split('\n').slice(said + 1, said + 3).map((r) => r.trim())).toEqual(['The file exists,', 'so the goal is met.']);
    expect(c.lastFrame()).toMatch(dimmed('reasoning (reported by the model, not observed):'));
    expect(c.lastFrame()).toMatch(dimmed('so the goal is met.'));
  });

  test('a turn without reasoning shows none', async () => {
    const c = await renderStore(createConsoleStore(base), { columns: 120, rows: 40 });
    const frame = await c.waitForFrame('claims done: Done.');
    expect(frame).not.toContain('reasoning');
  });
});
