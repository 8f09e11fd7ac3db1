// The context gauge: the console's estimate of the agent's next request against its
// context window, folded in the store from the events (live and in a replay), shown in the
// budget panel; each compaction is a row of the timeline.
import { describe, test, expect, beforeAll } from 'vitest';

import { estimateTokens, type EventDataMap, type EventType, type LoopEvent } from '../../src/engine/index.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { runHeadless } from '../support/console-rig.js';
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

/** `base` without its end, plus `items`, numbered after it. */
function extend(...items: Array<{ [T in EventType]: [T, EventDataMap[T]] }[EventType]>): LoopEvent[] {
  const last = base.at(-2)!;
  const events = base.slice(0, -1);
  let seq = last.seq;
  for (const [type, data] of items) events.push({ seq: ++seq, at: last.at + seq, session: last.session, type, data } as LoopEvent);
  return events;
}

const turn = (n: number, tokens: number): ['model.call', EventDataMap['model.call']] => [
  'model.call',
  {
    turn: n,
    request_hash: `h${n}`,
    response: { thought: 'read', tool_calls: [{ id: `c${n}`, name: 'shell', args: { command: 'cat big.log' } }], usage: { input_tokens: tokens, output_tokens: 5 }, context: { tokens, window: 8000 } },
    usage: { input_tokens: tokens, output_tokens: 5 },
    cost_usd: 0,
  },
];
const result = (n: number, output: string): ['tool.result', EventDataMap['tool.result']] => [
  'tool.result',
  { result: { call_id: `c${n}`, name: 'shell', status: 'ok', output, exit_code: 0, duration_ms: 1 } },
];
const compacted: ['context.compacted', EventDataMap['context.compacted']] = [
  'context.compacted',
  { turn: 4, before_tokens: 6400, after_tokens: 2100, window_tokens: 8000, threshold_tokens: 6000, kept_turns: 2, dropped_turns: 1, elided_count: 3, elided: [] },
];

describe('the context gauge', () => {
  test('a scripted run has no gauge: its agent sends no conversation', () => {
    expect(createConsoleStore(base).getState().context).toBeNull();
  });

  test('is the last request plus what came back since; a compaction sets it to the compacted size; a lap clears it', () => {
    const output = 'x'.repeat(3000);
    const events = extend(turn(3, 4000), result(3, output));
    const gauge = createConsoleStore(events).getState().context!;
    expect(gauge.window).toBe(8000);
    // The request, the agent's own answer and the tool output it will carry back.
    expect(gauge.tokens).toBeGreaterThan(4000 + estimateTokens(output));
    expect(gauge.tokens).toBeLessThan(4000 + estimateTokens(output) + 100);

    const store = createConsoleStore(events);
    store.getState().apply(extend(compacted).slice(-1));
    expect(store.getState().context).toEqual({ tokens: 2100, window: 8000 });
    store.getState().apply(extend(['lap.start', { lap: 2, max_laps: 3, progress: null }]).slice(-1));
    expect(store.getState().context).toBeNull();
  });

  test('a replay shows the gauge as of its cursor', () => {
    const events = extend(turn(3, 4000), result(3, 'ok'), compacted, turn(4, 2100));
    const at = (index: number) => createConsoleStore(events, { replay: { index, total: events.length } }).getState().context;
    expect(at(events.length - 2)).toEqual({ tokens: 2100, window: 8000 });
    expect(at(events.length - 4)!.tokens).toBeGreaterThan(4000);
    expect(at(base.length - 3)).toBeNull();
  });

  test('the budget panel shows it as a sixth gauge and the timeline shows the compaction as a row', async () => {
    const events = extend(turn(3, 4000), result(3, 'ok'), compacted, turn(4, 2100), result(4, 'y'.repeat(9000)));
    const c = await renderStore(createConsoleStore(events), { rows: 40, columns: 140 });
    await c.waitForFrame('context compacted before turn 4');
    const frame = c.frame();
    expect(frame).toMatch(/context\.compacted +context compacted before turn 4: ~6400 → ~2100 tokens of 8000; 2 newest turns kept whole, 3 outputs cut to fi/);
    const tokens = createConsoleStore(events).getState().context!.tokens;
    expect(frame).toContain(`context ~${Math.floor((tokens / 8000) * 100)}%`);
    expect(frame).toMatch(new RegExp(`█+░* ~${(Math.round(tokens / 100) / 10).toString().replace('.', '\\.')}k/8k`));
  });
});
