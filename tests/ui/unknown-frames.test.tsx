// Unknown is shown as unknown (docs/design.md, "Budget"; "Checkpoints and stagnation"): whole
// frames of the budget gauges and the checkpoint panel over a store folded from a real run
// whose observer is missing and whose model reported no usage for its answers.
import { describe, test, expect, beforeAll } from 'vitest';

import React, { type ReactNode } from 'react';
import { render } from 'ink-testing-library';
import type { Agent } from '../../src/engine/agents/agent.js';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { drive } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/index.js';
import { Session } from '../../src/engine/session.js';
import { BudgetPanel } from '../../src/ui/BudgetPanel.js';
import { CheckpointPanel } from '../../src/ui/CheckpointPanel.js';
import { ConsoleProvider } from '../../src/ui/context.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { goalOf, makeWorkspace } from '../support/console-rig.js';
import { READ_ONLY_CONTROLLER, STAGNANT } from '../support/ui-helpers.js';

let events: LoopEvent[];
beforeAll(async () => {
  const workspace = makeWorkspace(STAGNANT, {
    every: 1,
    threshold: 2,
    observe: [{ name: 'tests', command: 'no-such-test-runner-xyz' }],
    signals: [{ signal: 'observed.tests.failing', direction: 'decrease' }],
  });
  try {
    const scripted = ScriptedAgent.fromYaml(STAGNANT);
    // A model server that answers but never sends usage: 12 tokens reported on the first turn only.
    let turns = 0;
    const agent: Agent = {
      name: 'no-usage',
      async nextTurn(context) {
        const turn = await scripted.nextTurn(context);
        turns += 1;
        return turns === 1 ? { ...turn, usage: { input_tokens: 10, output_tokens: 2 } } : { ...turn, usage_unreported: true };
      },
    };
    let now = Date.UTC(2026, 0, 1);
    const session = new Session({ id: 'ui-test', agent, policy: workspace.policy, workspace: workspace.dir, clock: () => (now += 250) });
    events = [];
    session.subscribe((event) => events.push(event));
    await drive(session.run(goalOf(workspace.policy)), (y) => (y.kind === 'tool' ? { decision: 'approve' } : { action: 'continue' }));
  } finally {
    workspace.remove();
  }
});

function frameOf(node: ReactNode, upTo?: number): string {
  const { lastFrame, unmount } = render(
    <ConsoleProvider store={createConsoleStore(events.slice(0, upTo ?? events.length))} controller={READ_ONLY_CONTROLLER}>
      {node}
    </ConsoleProvider>,
  );
  const frame = lastFrame() ?? '';
  unmount();
  return frame;
}

describe('unknown, whole frames', () => {
  test('tokens and cost nobody reported are ? on the gauges, the known part a lower bound (≥)', () => {
    expect(frameOf(<BudgetPanel width={100} />)).toMatchInlineSnapshot(`
      "turns 20%           tool calls 0%       wall clock 0%       tokens ≥0%          cost ?
      ███░░░░░░░░░░░ 4/20 ░░░░░░░░░░░░░░ 0/20 ░░░░░░░░░ 11.2s/30m ░░░░░░░░░░ ≥12/100k ░░░░░ unknown/$1.00"
    `);
    expect(frameOf(<BudgetPanel width={100} compact />)).toMatchInlineSnapshot(`"turns 20% tools 0% clock 0% tokens ≥0% cost ?"`);
  });

  test('a checkpoint that measured nothing is UNKNOWN with why; the counter is kept', () => {
    expect(frameOf(<CheckpointPanel height={4} width={100} compact />)).toMatchInlineSnapshot(`
      "#4/4 · iteration 3 · UNKNOWN · counter 0/2 · [ earlier
      why unknown rule: no tracked signal could be measured (observed.tests.failing: observer "tests" (no…
      observed (measured) observed_progress null
      … 8 more"
    `);
    expect(frameOf(<CheckpointPanel height={6} width={120} />)).toMatchInlineSnapshot(`
      "#4/4 · iteration 3 · UNKNOWN · counter 0/2 · [ earlier
      why unknown rule: no tracked signal could be measured (observed.tests.failing: observer "tests"
      (no-such-test-runner-xyz): command not found (exit 127): sh: 1: no-such-test-runner-xyz: not found);
      observed (measured) observed_progress null                  reported (claims) vs #1–#3 claimed_progress false
      UNKNOWN (3 in a row): observed.tests.failing: observer "te… eliminated no change
      … 2 more                                                    remaining  no change"
    `);
  });
});
