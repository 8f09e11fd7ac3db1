// The tools' argument schemas are written once: what the model is told equals what the tools accept.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OPENAI_TOOLS, REPORT_TOOL, TOOL_ARG_SCHEMAS } from '../../src/engine/agents/openai.js';
import { runTool, TOOL_NAMES } from '../../src/engine/tools.js';

const workspace = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-tool-args-'));
writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
writeFileSync(path.join(workspace, '\u200ba.txt'), 'beta\n');
afterAll(() => rmSync(workspace, { recursive: true, force: true }));
const ctx = { workspace, shellTimeoutSeconds: 5, outputLimit: 4096 };

describe('tool argument schemas', () => {
  it('the model is offered exactly the harness tools and report_progress', () => {
    expect(OPENAI_TOOLS.map((t) => t.function.name).sort()).toEqual([...TOOL_NAMES, REPORT_TOOL].sort());
  });

  // Arguments the model's schema refuses are refused by the tool itself, with the same key named.
  it.each<[string, Record<string, unknown>]>([
    ['shell', { command: '' }],
    // Blank: the approval prompt would show nothing to approve. Invisible characters draw as
    // nothing too: a zero-width space, joiners, a byte order mark, direction marks, a no-break
    // space, a Hangul filler, the blank Braille pattern, an escape.
    ...[' ', '   ', '\t', '\n', ' \t\r\n ', '\u200b', ' \u200d\u200c ', '\ufeff', '\u200e\u200f\u2066', '\u00a0', '\u3164', '\u2800', '\u001b', '\u2028', '\u034f', '\ufe0f', '\ufe00\u{e0100}', '\u17b4\u17b5', '\u2060\u00ad'].flatMap((blank): Array<[string, Record<string, unknown>]> => [
      ['shell', { command: blank }],
      ['read_file', { path: blank }],
      ['write_file', { path: blank, content: 'x' }],
      ['edit', { path: blank, find: 'a', replace: 'b' }],
      ['list_files', { path: blank }],
      ['git_diff', { path: blank }],
    ]),
    ['shell', { command: 'ls', cwd: '/' }],
    ['read_file', {}],
    ['read_file', { path: 'a.txt', encoding: 'latin1' }],
    ['write_file', { path: 'b.txt' }],
    ['edit', { path: 'a.txt', find: '', replace: 'x' }],
    ['list_files', { max: 0 }],
    ['list_files', { max: 5001 }],
    ['list_files', { path: '' }],
    ['git_status', { verbose: true }],
    ['git_diff', { staged: 'yes' }],
  ])('%s %j: refused by the model-side check and by the tool', async (name, args) => {
    const model = TOOL_ARG_SCHEMAS[name as keyof typeof TOOL_ARG_SCHEMAS].safeParse(args);
    expect(model.success).toBe(false);
    const key = model.error!.issues[0]!.path.join('.') || 'args';
    await expect(runTool({ id: 't', name, args }, ctx)).rejects.toThrow(new RegExp(`bad arguments: ${key}`));
  });

  it.each([
    ['list_files', {}],
    ['list_files', { path: '.', max: 5000 }],
    ['read_file', { path: 'a.txt' }],
    ['shell', { command: 'true' }],
    // A visible character among invisible ones is a real name (and shows in the prompt).
    ['read_file', { path: '\u200ba.txt' }],
  ])('%s %j: accepted by both', async (name, args) => {
    expect(TOOL_ARG_SCHEMAS[name as keyof typeof TOOL_ARG_SCHEMAS].safeParse(args).success).toBe(true);
    await expect(runTool({ id: 't', name, args }, ctx)).resolves.toMatchObject({ status: 'ok' });
  });
});
