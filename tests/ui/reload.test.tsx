// `/reload` typed into the console's command bar while a tool call waits for approval:
// the diff shows in the timeline, the approval-rule change waits behind its own prompt
// with the diff, and `y` applies it (docs/design.md, "Live reload").
import { describe, test, expect } from 'vitest';

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { KEY, loopYaml } from '../support/console-rig.js';
import { normalize, open, WAITING } from '../support/ui-helpers.js';

describe('/reload in the console', () => {
  test('the diff shows in the timeline; an approval change waits for y behind a prompt with the diff', async () => {
    const rig = await open({ transcript: WAITING, rows: 34, columns: 120 });
    await rig.waitForFrame('Approve tool call shell (t1)');
    writeFileSync(path.join(rig.workspace.root, 'loop.yaml'), loopYaml({ maxTurns: 25, allow: ['shell: echo'] }));
    await rig.press('/');
    await rig.waitFor(() => rig.bar() === '/', 'the command bar to open');
    await rig.type('reload');
    await rig.press(KEY.enter);
    await rig.waitForFrame('apply the changes below?');
    await rig.waitFor(() => rig.store.getState().armed === rig.store.getState().session.reloadPending?.seq, 'the reload prompt to arm');
    await rig.waitForFrame('[y] apply the changes');
    const frame = normalize(rig.frame());
    expect(frame).toContain('1 applied, 1 wait for your key (y applies, n keeps the policy in force)');
    expect(frame).toMatch(/│ \/tmp\/\S+\/loop\.yaml changed approval rules or hooks: apply the changes below\? +│/);
    expect(frame).toMatch(/│ approval\.allow \[\] → \["shell: echo"\] +│/);
    expect(frame).toMatch(/│ \[y\] apply the changes {2}\[n\] keep the policy in force +│/);
    expect(frame).toMatch(/ policy\.reloaded +loop\.yaml reloaded \(\/reload\): budget\.limits\.turns 20 → 25 \(applied\); approval\.allow \[\] → \["sh…$/m);
    // The budget gauge already shows the new limit.
    expect(frame).toContain('1/25');
    expect(rig.session.policy.approval.allow).toEqual([]);

    await rig.press('y');
    await rig.waitForFrame('1 held change of');
    expect(rig.session.policy.approval.allow).toEqual(['shell: echo']);
    // The approval prompt of the waiting call is back, and the timeline shows the answer.
    await rig.waitForFrame('Approve tool call shell (t1)');
    expect(rig.frame()).toMatch(/reload answered: approval\.allow \[\] → \["shell: echo"\] \(applied\)/);
  });
});
