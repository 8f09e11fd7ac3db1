// The file tools never write loopdeck's own state: any `.loopdeck` folder (in any spelling),
// the run directory of the current run wherever it is, the loop.yaml the run was started with,
// the scripted agent's transcript and a command hook's program, when they lie inside the
// workspace. Each such write is one failed call and the file is unchanged; reading stays
// allowed. A real temp workspace, real symlinks.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError } from '../../src/engine/errors.js';
import { parsePolicy } from '../../src/engine/policy.js';
import { harnessFiles, runTool, type ToolContext } from '../../src/engine/tools.js';

let workspace: string;
let runDir: string;
let ctx: ToolContext;

const ws = (...parts: string[]) => path.join(workspace, ...parts);

beforeEach(() => {
  workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-harness-')));
  runDir = ws('.loopdeck', 'runs', 'run1');
  fs.mkdirSync(runDir, { recursive: true });
  fs.writeFileSync(path.join(runDir, 'policy.json'), '{"approval": {"default": "ask"}}\n');
  fs.writeFileSync(path.join(runDir, 'events.jsonl'), '{"seq":0}\n');
  fs.writeFileSync(ws('transcript.yaml'), 'turns:\n  - final: done\n');
  fs.writeFileSync(ws('audit.sh'), '#!/bin/sh\necho \'{"decision":"allow"}\'\n', { mode: 0o755 });
  fs.writeFileSync(
    ws('loop.yaml'),
    [
      'goal: { objective: keep the harness files }',
      'agent: { kind: scripted, script: transcript.yaml }',
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "true" }]',
      'approval: { default: ask }',
      'hooks: [{ name: audit, topic: before_tool_call, command: ./audit.sh }]',
      '',
    ].join('\n'),
  );
  const policy = parsePolicy(fs.readFileSync(ws('loop.yaml'), 'utf8'), ws('loop.yaml'));
  ctx = { workspace, shellTimeoutSeconds: 10, outputLimit: 16 * 1024, harness: harnessFiles({ runDir, policy }) };
});
afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

/** Every file under the workspace with its content. */
function snapshot(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of fs.readdirSync(workspace, { recursive: true }) as string[]) {
    const full = ws(rel);
    if (fs.lstatSync(full).isFile()) out[rel] = fs.readFileSync(full, 'utf8');
  }
  return out;
}

async function refused(tool: 'write_file' | 'edit', p: string): Promise<string> {
  const before = snapshot();
  const args = tool === 'write_file' ? { path: p, content: '{"approval": {"default": "allow", "builtin_gates": "off"}}\n' } : { path: p, find: 'ask', replace: 'allow' };
  let thrown: unknown;
  try {
    await runTool({ id: 'c1', name: tool, args }, ctx);
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `${tool} ${p} should fail`).toBeInstanceOf(ToolError);
  expect(snapshot()).toEqual(before);
  return (thrown as ToolError).message;
}

describe("loopdeck's own state is never written by the file tools", () => {
  it.each([
    ['write_file', '.loopdeck/runs/run1/policy.json'],
    ['edit', '.loopdeck/runs/run1/policy.json'],
    ['write_file', './.loopdeck/runs/run1/events.jsonl'],
    ['write_file', 'x/../.loopdeck/runs/run1/policy.json'],
    ['write_file', '.loopdeck/runs/other-run/events.jsonl'],
    ['write_file', '.loopdeck/new.json'],
    ['write_file', '.LOOPDECK/runs/run1/policy.json'],
    ['write_file', '.LoopDeck./runs/run1/policy.json'],
    ['write_file', '.loop\u200cdeck/runs/run1/policy.json'],
    ['write_file', 'LOOPDE~1/runs/run1/policy.json'],
    ['write_file', 'nested/.loopdeck/runs/r/policy.json'],
    ['write_file', '.loopdeck'],
  ])('%s %s is refused, naming .loopdeck', async (tool, p) => {
    const message = await refused(tool as 'write_file' | 'edit', p);
    expect(message).toMatch(new RegExp(`^${tool}: will not write ".*": it is inside loopdeck's own state \\(".*"\\): the file tools never write there`));
  });

  it('a symlink in the workspace that leads into .loopdeck is refused', async () => {
    fs.symlinkSync('.loopdeck/runs/run1', ws('state'));
    const message = await refused('write_file', 'state/policy.json');
    expect(message).toContain("it is inside loopdeck's own state");
  });

  it('the run directory is refused wherever it is, whatever its name', async () => {
    const elsewhere = ws('runs-here', 'run2');
    fs.mkdirSync(elsewhere, { recursive: true });
    fs.writeFileSync(path.join(elsewhere, 'policy.json'), '{"approval": {"default": "ask"}}\n');
    ctx = { ...ctx, harness: harnessFiles({ runDir: elsewhere }) };
    expect(await refused('write_file', 'runs-here/run2/policy.json')).toBe(
      `write_file: will not write "runs-here/run2/policy.json": it is inside the run directory of this run (${JSON.stringify(elsewhere)}): the file tools never write loopdeck's own files`,
    );
    expect(await refused('edit', 'runs-here/run2/policy.json')).toContain('it is inside the run directory of this run');
    expect(await refused('write_file', 'runs-here/run2/new-report.json')).toContain('it is inside the run directory of this run');
    expect(await refused('write_file', 'runs-here/run2')).toContain('it is the run directory of this run');
  });

  it.each([
    ['write_file', 'loop.yaml', 'the config file this run was started with'],
    ['edit', 'loop.yaml', 'the config file this run was started with'],
    ['write_file', 'sub/../loop.yaml', 'the config file this run was started with'],
    ['write_file', 'transcript.yaml', "the scripted agent's transcript"],
    ['edit', 'transcript.yaml', "the scripted agent's transcript"],
    ['write_file', 'audit.sh', 'the program of the hook "audit"'],
  ])('%s %s is refused: it is %s', async (tool, p, what) => {
    const message = await refused(tool as 'write_file' | 'edit', p);
    expect(message).toBe(`${tool}: will not write ${JSON.stringify(p)}: it is ${what} (${JSON.stringify(ws(path.basename(p)))}): the file tools never write loopdeck's own files`);
  });

  it('the config file reached through a symlink of another name is refused', async () => {
    fs.symlinkSync('loop.yaml', ws('config-link.yaml'));
    expect(await refused('write_file', 'config-link.yaml')).toContain('it is the config file this run was started with');
  });

  it('the config file stays readable; .loopdeck is neither read nor listed; other files are written as before', async () => {
    await expect(runTool({ id: 'c', name: 'read_file', args: { path: '.loopdeck/runs/run1/policy.json' } }, ctx)).rejects.toThrow(
      `read_file: will not read ".loopdeck/runs/run1/policy.json": it is inside loopdeck's own state (".loopdeck"), the logs and reports of runs, which are no part of the project`,
    );
    expect((await runTool({ id: 'c', name: 'read_file', args: { path: 'loop.yaml' } }, ctx)).status).toBe('ok');
    const list = await runTool({ id: 'c', name: 'list_files', args: { path: '.' } }, ctx);
    expect(list.output).toContain('loop.yaml');
    expect(list.output).not.toContain('.loopdeck');
    const written = await runTool({ id: 'c', name: 'write_file', args: { path: 'src/loopdeck.ts', content: 'ok' } }, ctx);
    expect(written.status).toBe('ok');
    expect((await runTool({ id: 'c', name: 'write_file', args: { path: '.loopdeckrc', content: 'ok' } }, ctx)).status).toBe('ok');
    expect(fs.readFileSync(ws('src', 'loopdeck.ts'), 'utf8')).toBe('ok');
  });
});
