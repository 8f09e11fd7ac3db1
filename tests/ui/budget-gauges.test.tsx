// The budget gauges' row: long amounts in every dimension at every width from 40 to 200
// never run into the next gauge (each column keeps a blank cell), and a spent limit never
// reads as unspent: amounts that differ are shown with the digits that tell them apart.
import { describe, test, expect, beforeAll } from 'vitest';

import React from 'react';
import stringWidth from 'string-width';
import type { LoopEvent } from '../../src/engine/index.js';
import type { BudgetDimension } from '../../src/engine/types.js';
import { BudgetPanel } from '../../src/ui/BudgetPanel.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import type { ContextGauge } from '../../src/ui/context-gauge.js';
import { gaugeAmounts } from '../../src/ui/format.js';
import { createConsoleStore, type ConsoleStore } from '../../src/ui/store.js';
import { runHeadless } from '../support/console-rig.js';
import { renderTerminal } from '../support/terminal.js';
import { READ_ONLY_CONTROLLER } from '../support/ui-helpers.js';

let events: LoopEvent[];
beforeAll(async () => {
  let now = Date.UTC(2026, 0, 1);
  events = (await runHeadless('turns:\n  - final: Done.\n', {}, () => (now += 250))).events;
});

type Amounts = Record<BudgetDimension, [used: number, limit: number | null]>;

/** A store of a finished run whose usage and limits are `amounts` (some dimensions unreported, a context gauge). */
function storeWith(amounts: Amounts, extra: { unreported?: BudgetDimension[]; context?: ContextGauge } = {}): ConsoleStore {
  const store = createConsoleStore(events);
  const s = store.getState();
  const pick = (i: 0 | 1) => Object.fromEntries(Object.entries(amounts).map(([d, a]) => [d, a[i]]));
  store.setState({
    session: { ...s.session, usage: pick(0) as never, limits: pick(1) as never, failedTurns: 0, activeSince: null, activeMs: amounts.wall_clock_seconds[0] * 1000, unreported: extra.unreported ?? [] },
    context: extra.context ?? null,
  });
  return store;
}

/** The panel's two rows at each width, from one render re-rendered at each. */
function rowsAt(store: ConsoleStore, widths: number[]): Map<number, string[]> {
  const tree = (width: number) => (
    <ConsoleProvider store={store} controller={READ_ONLY_CONTROLLER}>
      <BudgetPanel width={width} />
    </ConsoleProvider>
  );
  const terminal = renderTerminal(tree(widths[0]!), { columns: 220, rows: 10 });
  const out = new Map<number, string[]>();
  try {
    for (const width of widths) {
      terminal.instance.rerender(tree(width));
      out.set(width, terminal.frame().split('\n').map((r) => r.trimEnd()));
    }
  } finally {
    terminal.unmount();
  }
  return out;
}

const TRIAL: Amounts = { turns: [6, 50], tool_calls: [12, 20], wall_clock_seconds: [8.8, 5403], tokens: [15_000, 100_000], cost_usd: [0.02, 0.52] };
const LONG: Amounts = {
  turns: [123_456_789, 987_654_321],
  tool_calls: [100_001, 100_000],
  wall_clock_seconds: [63_943_650.5, 31_536_000],
  tokens: [9_007_199_254_740_991, 9_007_199_254_740_000],
  cost_usd: [123_456.789, 1_000_000],
};
const SPENT: Amounts = { turns: [21, 20], tool_calls: [1001, 1000], wall_clock_seconds: [1800.5, 1800], tokens: [10_400, 10_000], cost_usd: [0.021, 0.02] };
const UNLIMITED: Amounts = { turns: [3, null], tool_calls: [4_000_000_000, null], wall_clock_seconds: [5403.25, null], tokens: [123_456_789, null], cost_usd: [0.0000123, null] };

const BAR = /^[░█·]+$/;
/** Words a label row may hold: labels long and short, percents, `no limit`, and a word cut with `…`. */
const LABEL_WORD = /^(?:turns|tool|calls|tools|wall|clock|tokens|cost|context|ctx|no|limit|∞|[≥~]?\d+%|\?|.*…)$/;

describe('the gauges never run into each other', () => {
  const widths = Array.from({ length: 161 }, (_, i) => 40 + i);
  const cases: Array<[string, Amounts, { unreported?: BudgetDimension[]; context?: ContextGauge }]> = [
    ['trial amounts', TRIAL, {}],
    ['long amounts, with a context gauge', LONG, { context: { tokens: 987_654, window: 1_000_000 } }],
    ['spent amounts, unreported tokens and cost', SPENT, { unreported: ['tokens', 'cost_usd'] }],
    ['unlimited dimensions', UNLIMITED, { context: { tokens: 12_345, window: 128_000 } }],
  ];
  test.each(cases)('%s at every width from 40 to 200', (_, amounts, extra) => {
    const gauges = 5 + (extra.context ? 1 : 0);
    for (const [width, rows] of rowsAt(storeWith(amounts, extra), widths)) {
      const [labels, values] = rows as [string, string];
      const where = `at ${width} columns:\n${labels}\n${values}`;
      expect(stringWidth(labels), where).toBeLessThanOrEqual(width);
      expect(stringWidth(values), where).toBeLessThanOrEqual(width);
      for (const word of labels.split(' ').filter(Boolean)) expect(word, where).toMatch(LABEL_WORD);
      const tokens = values.split(' ').filter(Boolean);
      // A bar, or an amount: never a bar glued to an amount, never two amounts glued together.
      for (const token of tokens) expect(BAR.test(token) || !/[░█·]/.test(token), where).toBe(true);
      expect(tokens.filter((t) => !BAR.test(t)), where).toHaveLength(gauges);
    }
  });

  test('at 80 columns with the wall clock at 1h30m3s: the whole row', () => {
    expect(rowsAt(storeWith(TRIAL), [80]).get(80)).toEqual([
      'turns 12%   tool calls 60%   wall clock 0%      tokens 15%     cost 3%',
      '█░░░░░ 6/50 ██████░░░░ 12/20 ░░░░░ 8.8s/1h30m3s █░░░░ 15k/100k ░░░░ $0.02/$0.52',
    ]);
  });
});

describe('a spent limit never reads as unspent', () => {
  test('used past the limit: the amounts differ, in every dimension', () => {
    expect(gaugeAmounts('cost_usd', 0.021, 0.02)).toEqual(['$0.021', '$0.020']);
    expect(gaugeAmounts('tokens', 10_400, 10_000)).toEqual(['10.4k', '10k']);
    expect(gaugeAmounts('tool_calls', 1001, 1000)).toEqual(['1001', '1k']);
    expect(gaugeAmounts('turns', 21, 20)).toEqual(['21', '20']);
    expect(gaugeAmounts('wall_clock_seconds', 1800.5, 1800)).toEqual(['30m0.5s', '30m']);
    expect(gaugeAmounts('wall_clock_seconds', 5403.25, 5403)).toEqual(['1h30m3.2s', '1h30m3s']);
    expect(gaugeAmounts('wall_clock_seconds', 30.04, 30)).toEqual(['30.04s', '30s']);
    // Closer than a millisecond or a millionth of a dollar: which side of the limit it is.
    expect(gaugeAmounts('wall_clock_seconds', 30.0001, 30)).toEqual(['>30s', '30s']);
    // Under the limit but equal in short form: not shown as reached either.
    expect(gaugeAmounts('tokens', 99_600, 100_000)).toEqual(['99.6k', '100k']);
    expect(gaugeAmounts('cost_usd', 0.0199, 0.02)).toEqual(['$0.0199', '$0.0200']);
    // Equal amounts, and those the short form already tells apart, stay short.
    expect(gaugeAmounts('cost_usd', 0.02, 0.02)).toEqual(['$0.02', '$0.02']);
    expect(gaugeAmounts('tokens', 15_000, 100_000)).toEqual(['15k', '100k']);
  });

  test('the panel at 105% of the cost budget shows $0.021/$0.020, as the prompt does', () => {
    const rows = rowsAt(storeWith({ ...TRIAL, cost_usd: [0.021, 0.02] }), [100]).get(100)!;
    expect(rows).toEqual([
      'turns 12%           tool calls 60%      wall clock 0%       tokens 15%          cost 105%',
      '██░░░░░░░░░░░░ 6/50 ████████░░░░░ 12/20 ░░░░░░ 8.8s/1h30m3s ██░░░░░░░░ 15k/100k █████ $0.021/$0.020',
    ]);
  });
});
