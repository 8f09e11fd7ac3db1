// A hook topic whose decision the log already holds does not fire again on resume
// (docs/design.md, "Resume points"): `after_plan` that paused on the plan (a plan gate)
// before a crash is not run a second time; its side effect happens once and the operator
// is not asked twice about the same plan.
import { appendFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { drive } from '../../src/engine/drive.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { newGoal } from '../../src/engine/goal.js';
import type { HookRegistry } from '../../src/engine/hooks.js';
import { makeSession, policyAnswer, workspace, workspaceAt } from '../support/crash-run.js';

/** The file the hook appends a line to each time it runs: its side effect. */
const HOOK_LOG = 'after-plan.log';

/** A plan gate: `after_plan` notes the plan in the workspace and pauses for the operator. */
const gate = (dir: string) => (hooks: HookRegistry) =>
  hooks.on('after_plan', 'plan-gate', (p) => {
    appendFileSync(path.join(dir, HOOK_LOG), `${p.steps.length} step(s)\n`);
    return { type: 'pause', prompt: 'Is this plan right?' };
  });

const ran = (dir: string) => (existsSync(path.join(dir, HOOK_LOG)) ? readFileSync(path.join(dir, HOOK_LOG), 'utf8').split('\n').filter(Boolean).length : 0);

describe('after_plan on resume', () => {
  it('a log cut after its pause was recorded (or later): the hook does not run again, the plan is committed once, and the run ends as the uncrashed one', async () => {
    const dir = workspace();
    let events: LoopEvent[];
    try {
      const live = makeSession(dir, 'react', undefined, gate(dir));
      const outcome = await drive(live.session.run(newGoal('Append every id')), policyAnswer);
      expect([outcome.reason, ran(dir)]).toEqual(['goal_met', 1]);
      events = live.events;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const pause = events.findIndex((e) => e.type === 'session.pause');
    const commit = events.findIndex((e) => e.type === 'plan.commit');
    expect(pause).toBeGreaterThan(events.findIndex((e) => e.type === 'plan.draft'));
    // After the pause, after the operator's answer, after the return to PLANNING, after the commit.
    for (let cut = pause + 1; cut <= commit + 1; cut++) {
      const prior = events.slice(0, cut);
      const again = workspace();
      try {
        workspaceAt(again, prior);
        writeFileSync(path.join(again, HOOK_LOG), '1 step(s)\n'); // the crash left the hook's note behind
        const resumed = makeSession(again, 'react', prior, gate(again));
        const outcome = await drive(resumed.session.resume(), policyAnswer);
        const where = `cut after #${cut - 1} ${prior.at(-1)!.type}`;
        expect([where, outcome.reason, ran(again)]).toEqual([where, 'goal_met', 1]);
        const all = [...prior, ...resumed.events];
        expect([where, all.filter((e) => e.type === 'plan.commit').length, all.filter((e) => e.type === 'session.pause').length]).toEqual([where, 1, 1]);
      } finally {
        rmSync(again, { recursive: true, force: true });
      }
    }
  });

  it('a log cut before its pause was recorded: the hook runs again (its decision was lost) and pauses once', async () => {
    const dir = workspace();
    try {
      const live = makeSession(dir, 'react', undefined, gate(dir));
      await drive(live.session.run(newGoal('Append every id')), policyAnswer);
      const prior = live.events.slice(0, live.events.findIndex((e) => e.type === 'plan.draft') + 1);
      const again = workspace();
      try {
        const resumed = makeSession(again, 'react', prior, gate(again));
        expect((await drive(resumed.session.resume(), policyAnswer)).reason).toBe('goal_met');
        expect(ran(again)).toBe(1);
        expect(resumed.events.filter((e) => e.type === 'session.pause')).toHaveLength(1);
      } finally {
        rmSync(again, { recursive: true, force: true });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
