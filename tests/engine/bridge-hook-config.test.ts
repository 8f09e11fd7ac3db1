// The per-run hook configuration of each CLI: written under the run directory, handed over
// on the command line or in the environment, the user's own settings never edited.
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { bridgeCliOf, bridgeHookCommand, writeHookConfig } from '../../src/engine/bridge/hook-config.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { startRunBridge } from '../../src/bridge-launch.js';
import { ConfigErrors } from '../../src/engine/errors.js';

let dir: string;
const savedDefaults = process.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ld-hookcfg-'));
});
afterEach(() => {
  if (savedDefaults === undefined) delete process.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH;
  else process.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH = savedDefaults;
  rmSync(dir, { recursive: true, force: true });
});

const HOOK = `/usr/bin/node '/opt/my loopdeck/dist/cli.js' bridge --run r1 --format x --socket /tmp/loopdeck-a/s --timeout 70`;

it('Claude Code: a settings file passed with --settings, its PreToolUse hook for every tool', () => {
  const launch = writeHookConfig('claude', dir, HOOK, 100);
  if ('notice' in launch) throw new Error(launch.notice);
  const file = path.join(dir, 'hooks/claude-settings.json');
  expect(launch).toEqual({ env: { LOOPDECK_HOOK_SETTINGS: file }, append: '--settings "$LOOPDECK_HOOK_SETTINGS"' });
  expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: HOOK, timeout: 100 }] }] } });
  expect(statSync(file).mode & 0o777).toBe(0o600);
});

it('Codex: a -c override of this invocation, the command a TOML string', () => {
  const launch = writeHookConfig('codex', dir, `${HOOK} "quoted"\u007f`, 100);
  if ('notice' in launch) throw new Error(launch.notice);
  expect(launch.append).toBe('-c "$LOOPDECK_HOOK_CONFIG"');
  expect(launch.env.LOOPDECK_HOOK_CONFIG).toBe(`hooks.PreToolUse=[{hooks=[{type="command",command=${JSON.stringify(`${HOOK} "quoted"`).slice(0, -1)}\\u007F",timeout=100}]}]`);
});

it("Gemini CLI: a copy of the machine's system defaults with the BeforeTool hook added; the original untouched", () => {
  const original = path.join(dir, 'system-defaults.json');
  const text = JSON.stringify({ general: { vimMode: true }, hooks: { BeforeTool: [{ matcher: 'write_file', hooks: [{ type: 'command', command: 'audit.sh' }] }] } });
  writeFileSync(original, text);
  process.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH = original;
  const launch = writeHookConfig('gemini', dir, HOOK, 100);
  if ('notice' in launch) throw new Error(launch.notice);
  const file = path.join(dir, 'hooks/gemini-system-defaults.json');
  expect(launch).toEqual({ env: { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: file }, append: '' });
  const written = JSON.parse(readFileSync(file, 'utf8'));
  expect(written.general).toEqual({ vimMode: true });
  expect(written.hooks.BeforeTool).toEqual([
    { matcher: 'write_file', hooks: [{ type: 'command', command: 'audit.sh' }] },
    { matcher: '.*', hooks: [{ type: 'command', name: 'loopdeck-bridge', command: HOOK, timeout: 100_000 }] },
  ]);
  expect(readFileSync(original, 'utf8')).toBe(text);
});

it('Gemini CLI: system defaults that are not plain JSON are left alone and the run goes parse-only', () => {
  const original = path.join(dir, 'system-defaults.json');
  writeFileSync(original, '{ // comments\n "a": 1 }');
  process.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH = original;
  expect(writeHookConfig('gemini', dir, HOOK, 100)).toEqual({ notice: expect.stringMatching(/not plain JSON.*parse-only/) });
  expect(existsSync(path.join(dir, 'hooks/gemini-system-defaults.json'))).toBe(false);
});

it('the CLI comes from agent.output, else from the program name', () => {
  expect(bridgeCliOf({ command: 'node fake.mjs', output: 'claude-stream-json' })).toBe('claude');
  expect(bridgeCliOf({ command: 'codex exec --json', output: 'auto' })).toBe('codex');
  expect(bridgeCliOf({ command: '/usr/local/bin/gemini -p', output: 'auto' })).toBe('gemini');
  expect(bridgeCliOf({ command: 'aider --yes', output: 'auto' })).toBeNull();
  expect(bridgeCliOf({ command: 'claude-wrapper.sh', output: 'text' })).toBeNull();
});

it('the hook command quotes every word', () => {
  expect(bridgeHookCommand('/opt/my loopdeck/cli.js', 'claude', "r'1", '/tmp/a b/s', 70)).toBe(
    `${process.execPath} '/opt/my loopdeck/cli.js' bridge --run 'r'\\''1' --format claude --socket '/tmp/a b/s' --timeout 70`,
  );
});

it('approvals: bridge with no known CLI is a configuration error naming agent.approvals; auto runs parse-only', () => {
  const file = path.join(dir, 'loop.yaml');
  const yaml = (approvals: string) => `goal: { objective: x }\nagent: { kind: command, command: node fake.mjs, approvals: ${approvals} }\nworkspace: { path: ., copy: none }\nverify: [{ command: "true" }]\n`;
  const policy = (approvals: string) => parsePolicy(yaml(approvals), file);
  expect(() => startRunBridge(policy('bridge'), { id: 'r', runDir: dir }, () => undefined)).toThrow(ConfigErrors);
  expect(() => startRunBridge(policy('bridge'), { id: 'r', runDir: dir }, () => undefined)).toThrow(/agent\.approvals: bridge needs to know the CLI/);
  expect(startRunBridge(policy('auto'), { id: 'r', runDir: dir }, () => undefined)).toBeNull();
  expect(startRunBridge(policy('parse-only'), { id: 'r', runDir: dir }, () => undefined)).toBeNull();
});
