// Writes to files git reads as configuration are always asked about, with the reason in
// the prompt, whatever the approval rules allow. Through the real approval gate and
// HookRegistry; the approval prompt itself is covered in tests/ui/approval.test.tsx.
import { alwaysAllowChoices } from '../../../src/engine/approval/always-allow.js';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { HookRegistry } from '../../../src/engine/hooks.js';
import { parsePolicy } from '../../../src/engine/policy.js';
import type { ToolCall } from '../../../src/engine/types.js';
import { approvalGate } from '../../../src/hooks/approval-gate.js';
import { sensitivePathReason } from '../../../src/engine/approval/sensitive-paths.js';

const write = (p: string): ToolCall => ({ id: 't', name: 'write_file', args: { path: p, content: '* filter=x\n' } });
const edit = (p: string): ToolCall => ({ id: 't', name: 'edit', args: { path: p, find: 'a', replace: 'b' } });

function gate(approval: Record<string, unknown>): HookRegistry {
  const policy = parsePolicy(
    stringify({ goal: { objective: 'x' }, agent: { kind: 'scripted', script: 'x.yaml' }, workspace: { path: '.', copy: 'none' }, verify: [{ command: 'true' }], approval, hooks: ['approval-gate'] }),
    path.join('/nowhere', 'loop.yaml'),
  );
  const registry = new HookRegistry();
  approvalGate(registry, policy);
  return registry;
}

const ATTRIBUTES = 'git runs the filter, diff and merge drivers it names';
const MODULES = 'git fetches and checks out the submodule URLs and paths it names';

describe('sensitivePathReason', () => {
  it.each([
    [write('.gitattributes'), `writes .gitattributes: ${ATTRIBUTES}`],
    [write('./.gitattributes'), `writes .gitattributes: ${ATTRIBUTES}`],
    [write('src/deep/.gitattributes'), `writes .gitattributes: ${ATTRIBUTES}`],
    [write('.GITATTRIBUTES'), `writes .gitattributes: ${ATTRIBUTES}`],
    [write('.gitattributes.'), `writes .gitattributes: ${ATTRIBUTES}`],
    [write('x/../.gitattributes'), `writes .gitattributes: ${ATTRIBUTES}`],
    [edit('.gitmodules'), `writes .gitmodules: ${MODULES}`],
    [edit('vendor/lib/.GitModules'), `writes .gitmodules: ${MODULES}`],
  ])('%j → asked', (call, reason) => {
    expect(sensitivePathReason(call)).toBe(reason);
  });

  it.each([
    write('src/app.ts'),
    write('gitattributes'),
    write('.gitattributes.bak'),
    write('.gitignore'),
    { id: 't', name: 'read_file', args: { path: '.gitattributes' } },
    { id: 't', name: 'shell', args: { command: 'cat .gitattributes' } },
    { id: 't', name: 'write_file', args: { path: 42 } },
  ] as ToolCall[])('%j → no reason', (call) => {
    expect(sensitivePathReason(call)).toBeNull();
  });
});

describe('the approval gate', () => {
  it('asks about a .gitattributes write even though an allow rule allows write_file, saying why', async () => {
    const outcome = await gate({ default: 'ask', allow: ['write_file'] }).call('before_tool_call', { call: write('sub/.gitattributes'), granted: [] });
    expect(outcome).toEqual({
      decision: { type: 'pause', prompt: `writes .gitattributes: ${ATTRIBUTES} (always asked; the rules alone say: allow rule "write_file")` },
      failures: [],
    });
  });

  it('asks even with default: allow and a rule granted with "always allow" during the run', async () => {
    const call = edit('.gitmodules');
    const granted = alwaysAllowChoices(call).exact.rule;
    expect(granted).not.toBeNull();
    const outcome = await gate({ default: 'allow' }).call('before_tool_call', { call, granted: [granted!] });
    expect(outcome.decision).toMatchObject({ type: 'pause', prompt: expect.stringMatching(new RegExp(`^writes \\.gitmodules: .* \\(always asked; the rules alone say: `)) });
    expect(outcome.decision).toMatchObject({ prompt: expect.stringContaining(granted!) });
  });

  it('a call the rules ask about anyway carries both reasons', async () => {
    const outcome = await gate({ default: 'ask' }).call('before_tool_call', { call: write('.gitattributes'), granted: [] });
    expect(outcome.decision).toEqual({
      type: 'pause',
      prompt: `writes .gitattributes: ${ATTRIBUTES} (always asked; the rules alone say: no rule names tool "write_file" (default: ask))`,
    });
  });

  it('a deny still wins', async () => {
    const outcome = await gate({ default: 'deny' }).call('before_tool_call', { call: write('.gitattributes'), granted: [] });
    expect(outcome.decision).toEqual({ type: 'deny', reason: 'no rule names tool "write_file" (default: deny)' });
  });

  it('other writes are allowed by the rule as before', async () => {
    const outcome = await gate({ default: 'ask', allow: ['write_file'] }).call('before_tool_call', { call: write('src/.gitattributes-notes.md'), granted: [] });
    expect(outcome.decision).toEqual({ type: 'allow' });
  });
});
