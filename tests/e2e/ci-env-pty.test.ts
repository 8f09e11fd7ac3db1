// A console opened in a terminal whose environment says CI (a debugging shell in a CI job,
// a container that sets it): Ink, which reads CI once as it is imported, would draw no
// live frame, and the operator would see the outline and nothing after it. The console
// draws as anywhere else. A pseudo-terminal and a terminal emulator; needs `npm run build`.
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeRun } from '../support/demo-run.js';
import { startPty, type PtyTerminal } from '../support/pty-terminal.js';

const terminals: PtyTerminal[] = [];
afterEach(async () => {
  for (const t of terminals.splice(0)) {
    await t.close();
    // The folder, and the temporary copy of the workspace its run made.
    removeRun(t.cwd);
  }
});

/** A project whose scripted agent runs one shell command (allowed by rule), then claims done. */
function project(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-ci-env-'));
  mkdirSync(path.join(dir, 'work'));
  writeFileSync(path.join(dir, 'work', 'README'), 'x\n');
  writeFileSync(
    path.join(dir, 'agent.yaml'),
    `turns:\n  - thought: Say hi.\n    tool_calls:\n      - { id: c1, name: shell, args: { command: echo hi } }\n  - final: Looked.\n`,
  );
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    `goal:\n  objective: Read the environment\nagent:\n  kind: scripted\n  script: agent.yaml\nworkspace:\n  path: work\n  copy: temp\nbudget:\n  max_iterations: 5\nverify:\n  - command: "true"\napproval:\n  default: ask\n  allow: ["shell: echo hi"]\n`,
  );
  return dir;
}

describe('a console in an environment that says CI', () => {
  for (const [name, value] of [
    ['CI', 'true'],
    ['CONTINUOUS_INTEGRATION', '1'],
  ] as const) {
    it(`${name}=${value}: the run's frames are drawn live, to its end, and so are a replay's`, async () => {
      const cwd = project();
      const t = startPty({ args: ['run'], cwd, env: { [name]: value } });
      terminals.push(t);
      // Past the outline: the header's state line and the run's end are live frames.
      await t.waitFor(/Run finished: goal_met/, 30_000);
      expect(t.screen()).toMatch(/react · DONE \(goal_met\)/);
      expect(t.screen()).toMatch(/tool\.result +shell ok/);
      expect(t.screen()).not.toMatch(/preparing…/);
      t.press('q');
      await t.exit;
      const [run] = readdirSync(path.join(cwd, '.loopdeck', 'runs'));
      const replay = startPty({ args: ['replay', path.join(cwd, '.loopdeck', 'runs', run!, 'events.jsonl')], env: { [name]: value } });
      terminals.push(replay);
      await replay.waitFor(/session\.complete +complete: goal_met/, 30_000);
      expect(replay.screen()).toMatch(/Timeline/);
    });
  }
});
