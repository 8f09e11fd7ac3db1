// A command agent runs in the workspace, but the program its command starts, written as a
// relative path, is found from loop.yaml's folder: where `validate` looks for it and where
// hooks find theirs. `anchorProgram` writes that program's absolute path into the command.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { anchorProgram } from '../../src/engine/policy.js';

describe('anchorProgram', () => {
  const base = '/cfg/dir';
  it.each([
    ['./agent.sh', '/cfg/dir/agent.sh'],
    ['./agent.sh --flag x', '/cfg/dir/agent.sh --flag x'],
    ['bin/agent -p', '/cfg/dir/bin/agent -p'],
    ['../up/agent', '/cfg/up/agent'],
    ['FOO=1 ./agent.sh', 'FOO=1 /cfg/dir/agent.sh'],
    ['exec ./agent.sh', 'exec /cfg/dir/agent.sh'],
    ['command -p ./agent.sh a', 'command -p /cfg/dir/agent.sh a'],
    ['cd . 2>/dev/null; ./agent.sh', 'cd . 2>/dev/null; ./agent.sh'],
    ['true && ./agent.sh | tee log', 'true && /cfg/dir/agent.sh | tee log'],
    ['"./my agent.sh" arg', "'/cfg/dir/my agent.sh' arg"],
    ["'./it''s.sh'", '/cfg/dir/its.sh'],
    ['echo é; ./agent.sh é', 'echo é; /cfg/dir/agent.sh é'],
  ])('%s runs %s', (command, expected) => {
    expect(anchorProgram(command, base)).toBe(expected);
  });
  it.each(['claude -p', '/abs/agent.sh', '~/bin/agent', '"$AGENT" -p', 'echo hi', '"$(pwd)/agent.sh"'])('%s stays as written', (command) => {
    expect(anchorProgram(command, base)).toBe(command);
  });
  it('a program under a folder whose name needs quoting is quoted as one word', () => {
    expect(anchorProgram('./agent.sh', "/it's here")).toBe(`'/it'\\''s here/agent.sh'`);
  });
});

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('the anchored command starts the program from the config folder while running in another', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-anchor-'));
  dirs.push(root);
  const config = path.join(root, 'cfg dir');
  const work = path.join(root, 'work');
  mkdirSync(config);
  mkdirSync(work);
  writeFileSync(path.join(config, 'agent.sh'), '#!/bin/sh\necho "ran in $(pwd)"\n');
  chmodSync(path.join(config, 'agent.sh'), 0o755);
  const out = execFileSync('sh', ['-c', anchorProgram('./agent.sh', config)], { cwd: work, encoding: 'utf8' });
  expect(out).toBe(`ran in ${work}\n`);
});
