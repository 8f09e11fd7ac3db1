// A run's saved policy.json is read back through the loop.yaml schema: what loopdeck wrote
// reads back to the same policy, and anything else is a config error naming policy.json and
// the path in it. Real files in a temp folder (the transcript and hook programs must exist).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigErrors } from '../../src/engine/errors.js';
import { loadPolicy, type LoopPolicy } from '../../src/engine/policy.js';
import { parseSavedPolicy, policyDigest, savedPolicyText } from '../../src/engine/saved-policy.js';

const root = path.resolve(import.meta.dirname, '../..');
let dir: string;
let saved: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'loopdeck-saved-policy-'));
  saved = path.join(dir, 'run', 'policy.json');
  fs.writeFileSync(path.join(dir, 'transcript.yaml'), 'turns:\n  - final: done\n');
  fs.writeFileSync(path.join(dir, 'hook.sh'), '#!/bin/sh\n', { mode: 0o755 });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Every duration, limit and list that the saved form writes differently from loop.yaml. */
const EVERY_FIELD = `
goal: { objective: Round trip, constraints: [keep it] }
agent: { kind: scripted, script: transcript.yaml }
workspace: { path: ., copy: none }
budget:
  max_iterations: unlimited
  max_tool_calls: 7
  max_wall_clock: 1h30m
  max_tokens: unlimited
  max_cost_usd: 2.5
  increments: { wall_clock: 5m, cost_usd: 0.5 }
observe: [{ name: tests, command: "true", parser: tap, timeout: 45s }]
verify: [{ command: "true", timeout: 2m }]
approval: { allow: [read_file, "shell: git status"], timeout: unlimited, builtin_gates: "off" }
hooks: [trace-writer, { name: audit, topic: before_tool_call, command: ./hook.sh, timeout: 3s }]
hook_timeout: 7s
tools: { shell_timeout: 90s }
`;

function load(text: string): LoopPolicy {
  fs.writeFileSync(path.join(dir, 'loop.yaml'), text);
  return loadPolicy(path.join(dir, 'loop.yaml'));
}

function errorsOf(text: string): string[] {
  try {
    parseSavedPolicy(text, saved);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigErrors);
    return (error as ConfigErrors).errors.map((e) => e.message);
  }
  throw new Error('expected the saved policy to be refused');
}

/** The saved text of `EVERY_FIELD` with `change` applied to its parsed form. */
function changed(change: (policy: any) => unknown): string {
  return JSON.stringify(change(JSON.parse(savedPolicyText(load(EVERY_FIELD)))), null, 2);
}

describe('what loopdeck saves reads back to the same policy', () => {
  it.each([
    ['every duration, unlimited limit and hook', EVERY_FIELD],
    ['a command agent with its timeout', EVERY_FIELD.replace('{ kind: scripted, script: transcript.yaml }', '{ kind: command, command: sh, timeout: 10m }')],
    ['an openai agent with its default time limits', EVERY_FIELD.replace('{ kind: scripted, script: transcript.yaml }', '{ kind: openai, model: m, base_url: "http://127.0.0.1:9/v1" }')],
    [
      'an openai agent with its time limits set',
      EVERY_FIELD.replace('{ kind: scripted, script: transcript.yaml }', '{ kind: openai, model: m, base_url: "http://127.0.0.1:9/v1", request_timeout: 3m, stream_idle_timeout: 20s, max_retry_wait: 5s }'),
    ],
    [
      'checked constraints with their timeout and on_violation',
      EVERY_FIELD.replace('constraints: [keep it] }', 'constraints: [keep it, { text: t, protect: ["test/**"] }, { text: c, command: "true", timeout: 30s }], on_violation: alert }'),
    ],
  ])('%s', (_kind, text) => {
    const policy = load(text);
    expect(parseSavedPolicy(savedPolicyText(policy), saved)).toEqual(JSON.parse(savedPolicyText(policy)));
  });

  it("the repository's own loop.yaml", () => {
    const policy = loadPolicy(path.join(root, 'loop.yaml'));
    expect(parseSavedPolicy(savedPolicyText(policy), saved)).toEqual(JSON.parse(savedPolicyText(policy)));
  });

  it('the digest is the sha256 of the text', () => {
    expect(policyDigest('{}\n')).toBe('ca3d163bab055381827226140568f3bef7eaac187cebd76878e0b63e9e442356');
  });
});

describe('anything else is a config error naming policy.json and the path in it', () => {
  it.each<[string, (p: any) => unknown, string]>([
    ['an unknown approval default', (p) => ({ ...p, approval: { ...p.approval, default: 'yolo' } }), 'approval.default: expected one of ask, allow, deny, found "yolo"'],
    ['an extra key', (p) => ({ ...p, approval: { ...p.approval, bypass: true } }), 'approval.bypass: unknown key "bypass"'],
    ['an extra key where the saved form differs', (p) => ({ ...p, budget: { ...p.budget, limits: { ...p.budget.limits, extra: 1 } } }), 'budget.limits.extra: expected nothing (what loopdeck writes for this policy), found 1'],
    ['a duration in loop.yaml spelling', (p) => ({ ...p, tools: { shell_timeout: '2m', output_limit_bytes: 16384 } }), 'tools.shell_timeout: expected 120 (what loopdeck writes for this policy), found "2m"'],
    ['a zero timeout', (p) => ({ ...p, hook_timeout: 0 }), 'hook_timeout: expected a duration like 90s, 10m or 1h30m, found 0'],
    ['a timer past its bound', (p) => ({ ...p, approval: { ...p.approval, timeout: 10 ** 9 } }), 'approval.timeout: expected a duration of at most 576h'],
    ['a budget with no bound', (p) => ({ ...p, budget: { ...p.budget, limits: { turns: null, tool_calls: null, wall_clock_seconds: null, tokens: null, cost_usd: null } } }), 'budget: expected at least one bound'],
    ['a negative turn limit', (p) => ({ ...p, budget: { ...p.budget, limits: { ...p.budget.limits, turns: -1 } } }), 'budget.limits.turns: expected a positive integer or "unlimited", found -1'],
    ['a missing section', (p) => ({ ...p, approval: undefined }), 'approval: expected a mapping (what loopdeck writes for this policy), found nothing'],
    ['a relative transcript', (p) => ({ ...p, agent: { kind: 'scripted', script: 'transcript.yaml' } }), 'agent.script: expected'],
    ['a transcript that is not there', (p) => ({ ...p, agent: { kind: 'scripted', script: '/nonexistent/t.yaml' } }), 'agent.script: expected a readable file, found none at /nonexistent/t.yaml'],
    ['a relative config file', (p) => ({ ...p, file: 'loop.yaml' }), 'file: expected the absolute path of the loop.yaml the run was started with, found "loop.yaml"'],
    ['a hook program that does not resolve', (p) => ({ ...p, hooks: [{ name: 'x', topic: 'before_tool_call', command: './missing.sh', timeout: 3 }] }), 'hooks[0].command: expected an executable program'],
    ['a list', () => [1], '(root): expected a JSON object, found'],
    ['a list item in another spelling', (p) => ({ ...p, goal: { ...p.goal, constraints: ['  keep it  '] } }), 'goal.constraints[0]: expected "keep it" (what loopdeck writes for this policy), found "  keep it  "'],
  ])('%s', (_kind, change, expected) => {
    const messages = errorsOf(changed(change));
    expect(messages[0]).toBe(`${saved}: expected the policy loopdeck run saved for this run (it is written once at start, never edited), found one that is not valid:`);
    expect(messages.slice(1).join('\n')).toContain(`${saved}: ${expected}`);
  });

  it('text that is not JSON', () => {
    expect(errorsOf('{"approval": ')[1]).toMatch(new RegExp(`^${saved.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: expected JSON, found text that does not parse \\(`));
  });

  it('a __proto__ key is refused, never merged', () => {
    const text = savedPolicyText(load(EVERY_FIELD)).replace('"approval": {', '"approval": { "__proto__": { "default": "allow" },');
    expect(errorsOf(text).join('\n')).toContain(saved);
    expect(({} as Record<string, unknown>).default).toBeUndefined();
  });
});
