// A budget pause after `/budget <dim> +N`: once the spent limit is above its use, the pause
// box says so in the console's units and no longer offers `e` (it would raise a second
// time), live and in a console folded from the run's log (a resumed run).
import { describe, test, expect } from 'vitest';

import { createConsoleStore } from '../../src/ui/store.js';
import { KEY, type ConsoleRig } from '../support/console-rig.js';
import { open, renderStore } from '../support/ui-helpers.js';

/** Two turns of 1000 input and 500 output tokens: $0.0105 each at $3 / $15 per million. */
const PRICED = `
turns:
  - thought: One.
    usage: { input_tokens: 1000, output_tokens: 500 }
  - thought: Two.
    usage: { input_tokens: 1000, output_tokens: 500 }
  - final: Three.
    usage: { input_tokens: 1000, output_tokens: 500 }
`;

const POLICY = {
  budget: { max_cost_usd: 0.02 },
  pricing: { input_per_million_usd: 3, output_per_million_usd: 15 },
  verify: 'node -e "process.exit(1)"',
};

/** The rows of the prompt box (its borders included) in a frame. */
function box(frame: string): string[] {
  const lines = frame.split('\n');
  const start = lines.findIndex((l) => l.startsWith('╭'));
  const end = lines.findIndex((l, i) => i > start && l.startsWith('╰'));
  return lines.slice(start, end + 1).map((l) => l.trimEnd());
}

async function atCostPause(): Promise<ConsoleRig> {
  const rig = await open({ transcript: PRICED, policy: POLICY, columns: 100 });
  await rig.waitForFrame('Paused: budget_exceeded:cost');
  await rig.waitForArmed();
  return rig;
}

async function budgetCommand(rig: ConsoleRig, line: string): Promise<void> {
  await rig.press('/');
  await rig.waitFor(() => rig.bar() === '/', 'the command bar to open');
  await rig.type(line.slice(1));
  await rig.press(KEY.enter);
  await rig.waitFor(() => rig.store.getState().session.limits.cost_usd !== 0.02, `"${line}" to raise the limit`);
  await rig.waitFor(() => rig.store.getState().events.length === rig.events.length, 'the store to have every event');
}

const RAISED_BOX = [
  '╭──────────────────────────────────────────────────────────────────────────────────────────────────╮',
  '│ Paused: budget_exceeded:cost                                                                     │',
  '│ The cost limit is now $0.52 ($0.021 used): c continues the run.                                  │',
  '│ [c] continue  [s] stop                                                                           │',
  '╰──────────────────────────────────────────────────────────────────────────────────────────────────╯',
];

describe('a budget pause after the limit was raised', () => {
  test('the prompt suggests the raise in the form /budget and e answer it ($1.00, not $1.000)', async () => {
    const rig = await atCostPause();
    expect(box(rig.frame())).toEqual([
      '╭──────────────────────────────────────────────────────────────────────────────────────────────────╮',
      '│ Paused: budget_exceeded:cost                                                                     │',
      '│ The cost budget is spent ($0.021 of $0.020). Raise it (/budget cost +$1.00) and continue, or     │',
      '│ stop.                                                                                            │',
      '│ [e] extend and continue  [c] continue  [s] stop                                                  │',
      '╰──────────────────────────────────────────────────────────────────────────────────────────────────╯',
    ]);
    await rig.press('e');
    await rig.waitForFrame('✓ cost limit raised to $1.02 (+$1.00)');
  });

  test('after /budget cost +0.5 the box says the new limit and offers no e; e does not raise again; the log folds to the same box', async () => {
    const rig = await atCostPause();
    await budgetCommand(rig, '/budget cost +0.5');
    await rig.waitForFrame('✓ cost limit raised to $0.52 (+$0.50)');
    await rig.waitForFrame('[c] continue  [s] stop');
    expect(box(rig.frame())).toEqual(RAISED_BOX);
    expect(rig.frame()).toMatch(/\$0\.02\/\$0\.52$/m);
    // e is not bound here: it raises nothing and answers nothing.
    await rig.press('e');
    expect(rig.session.snapshot.limits.cost_usd).toBe(0.52);
    expect(rig.events.filter((e) => e.type === 'budget.extended')).toHaveLength(1);
    expect(rig.controller.answer).not.toHaveBeenCalled();
    expect(box(rig.frame())).toEqual(RAISED_BOX);
    // A console folded from the log, as `resume` builds it in a new process, shows the same box.
    const resumed = await renderStore(createConsoleStore(rig.events), { columns: 100, rows: 30 });
    await resumed.waitForFrame('[c] continue  [s] stop');
    expect(box(resumed.frame())).toEqual(RAISED_BOX);
    // c continues the run: the third turn claims the goal, the verifier refutes it, the script runs out.
    await rig.press('c');
    await rig.waitFor(() => rig.events.some((e) => e.type === 'session.resume'), 'the run to resume');
  });
});
