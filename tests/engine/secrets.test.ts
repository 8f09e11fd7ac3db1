import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordAbort } from '../../src/engine/abort.js';
import { isOpenAIEndpoint, selectApiKey } from '../../src/engine/agents/openai.js';
import { ConfigErrors } from '../../src/engine/errors.js';
import { newGoal } from '../../src/engine/goal.js';
import { HookRegistry } from '../../src/engine/hooks.js';
import { HeadTail, runShell } from '../../src/engine/process.js';
import { boundText, createRedactor, REDACTED, tailText } from '../../src/engine/redact.js';
import type { LoopPolicy } from '../../src/engine/policy.js';
import { declareSecretEnv } from '../../src/engine/secrets.js';
import { traceWriter } from '../../src/hooks/trace-writer.js';
import { policySecretEnv } from '../../src/launch.js';

/** A secret of the test process's environment, in no known key format. */
const SECRET = 'Zx81qPLmw04vTTyRbe67Kda2';
const NAME = 'LOOPDECK_TEST_TOKEN';

/** Every piece of `secret` of 5 characters or more that occurs in `text`. */
function fragments(text: string, secret: string = SECRET): string[] {
  const found: string[] = [];
  for (let i = 0; i + 5 <= secret.length; i++) {
    const piece = secret.slice(i, i + 5);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
}

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-secrets-'));
  dirs.push(dir);
  return dir;
}

beforeAll(() => {
  process.env[NAME] = SECRET;
});
afterAll(() => {
  delete process.env[NAME];
});
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('truncation redacts first: no fragment of a secret cut in two survives', () => {
  it('a shell command whose output puts the secret across the head cut and across the tail cut', async () => {
    // limit 200: the head keeps 100 characters, the tail 100. The first copy starts at 90
    // (cut after 10 characters), the second ends 10 characters into the tail.
    const output = `${'a'.repeat(90)}${SECRET}${'-'.repeat(10_000)}${SECRET}${'b'.repeat(90)}`;
    const file = path.join(tempDir(), 'out.txt');
    writeFileSync(file, output);
    const result = await runShell(`cat ${file}`, { cwd: os.tmpdir(), timeoutSeconds: 10, outputLimitBytes: 200 });
    expect(result.output).toMatch(/characters truncated/);
    expect(result.output.startsWith('a'.repeat(90))).toBe(true);
    expect(result.output.endsWith('b'.repeat(90))).toBe(true);
    expect(fragments(result.output)).toEqual([]);
  });

  it('HeadTail fed a character at a time, and each cut helper', () => {
    const text = `${'x'.repeat(45)}${SECRET}${'y'.repeat(500)}${SECRET}${'z'.repeat(45)}`;
    const stream = new HeadTail(100);
    for (const ch of text) stream.push(ch);
    expect(fragments(stream.toString())).toEqual([]);
    expect(fragments(boundText(text, 100))).toEqual([]);
    expect(fragments(tailText(text, 60))).toEqual([]);
    // A short text is only redacted.
    expect(boundText(`key ${SECRET} end`, 1000)).toBe(`key ${REDACTED} end`);
  });

  it('a known key format cut by a file read (no environment value needed)', () => {
    const key = `ghp_${'A1b2C3d4E5'.repeat(4)}`;
    const redact = createRedactor({});
    const out = boundText(`${'.'.repeat(95)}${key}${'.'.repeat(300)}`, 200, redact);
    expect(fragments(out, key)).toEqual([]);
  });
});

it('trace-writer writes no secret to trace.log', async () => {
  const dir = tempDir();
  const registry = new HookRegistry();
  traceWriter(registry, dir);
  await registry.call('before_tool_call', { call: { id: 't1', name: 'shell', args: { command: `curl -u me:${SECRET} x` } }, granted: [] });
  await registry.call('on_error', { source: 'tool', error: `auth failed for ${SECRET}` });
  const trace = readFileSync(path.join(dir, 'trace.log'), 'utf8');
  expect(trace).toContain(REDACTED);
  expect(fragments(trace)).toEqual([]);
});

it('failure-report.json holds the progress file redacted', async () => {
  const ws = tempDir();
  const runDir = path.join(tempDir(), 'run');
  writeFileSync(path.join(ws, 'PROGRESS.md'), `next: call the API with ${SECRET}\n`);
  const { report, path: file } = await recordAbort({
    reason: 'operator',
    now: 0,
    session: 's1',
    workspace: ws,
    runDir,
    goal: newGoal('g', [], []),
    budget: { limits: { turns: 1, tool_calls: null, wall_clock_seconds: null, tokens: null, cost_usd: null }, usage: { turns: 1, tool_calls: 0, wall_clock_seconds: 0, tokens: 0, cost_usd: 0 } },
    events: [],
    progressFile: path.join(ws, 'PROGRESS.md'),
  });
  expect(report.progress_file?.content).toBe(`next: call the API with ${REDACTED}\n`);
  expect(fragments(readFileSync(file!, 'utf8'))).toEqual([]);
});

describe('which key goes where', () => {
  const env: Record<string, string> = { OPENAI_API_KEY: 'sk-openai', LLM_ACCESS: 'named-key', EMPTY: '' };
  const read = (name: string) => env[name];

  it('OPENAI_API_KEY only to the OpenAI API; a named variable wherever the policy says; none otherwise', () => {
    expect(selectApiKey({}, read)).toBe('sk-openai');
    expect(selectApiKey({ baseURL: 'https://api.openai.com/v1' }, read)).toBe('sk-openai');
    for (const baseURL of ['http://localhost:11434/v1', 'http://api.openai.com/v1', 'https://api.openai.com.evil.test/v1', 'https://api.openai.com:8443/v1', 'not a url']) {
      expect(selectApiKey({ baseURL }, read), baseURL).toBeUndefined();
      expect(isOpenAIEndpoint(baseURL), baseURL).toBe(false);
    }
    expect(selectApiKey({ baseURL: 'http://localhost:8000/v1', apiKeyEnv: 'LLM_ACCESS' }, read)).toBe('named-key');
    expect(selectApiKey({ baseURL: 'http://localhost:8000/v1', apiKeyEnv: 'OPENAI_API_KEY' }, read)).toBe('sk-openai');
  });

  it('a named variable that is unset or empty is a config error naming it', () => {
    expect(() => selectApiKey({ apiKeyEnv: 'NOPE', file: '/x/loop.yaml' }, read)).toThrow(ConfigErrors);
    expect(() => selectApiKey({ apiKeyEnv: 'NOPE', file: '/x/loop.yaml' }, read)).toThrow('/x/loop.yaml: agent.api_key_env: expected the environment variable NOPE to hold the API key, found it is not set');
    expect(() => selectApiKey({ apiKeyEnv: 'EMPTY' }, read)).toThrow(/EMPTY to hold the API key, found it is empty/);
  });
});

it.skipIf(process.platform !== 'linux')('hideSecretEnv clears the values from /proc/<pid>/environ and process.env, and keeps them for envValue', async () => {
  const module = path.resolve(import.meta.dirname, '../../src/engine/secrets.ts');
  const script = [
    `const { hideSecretEnv, declareSecretEnv, envValue } = await import(${JSON.stringify(module)});`,
    "const environ = () => require('node:fs').readFileSync('/proc/self/environ', 'latin1');",
    'const result = hideSecretEnv();',
    "declareSecretEnv(['PLAIN_NAME']);",
    'console.log(JSON.stringify({ result, environ: environ(), env: process.env, kept: [envValue("MY_SECRET"), envValue("PLAIN_NAME")] }));',
  ].join('\n');
  const tsx = path.resolve(import.meta.dirname, '../../node_modules/.bin/tsx');
  const { stdout } = await execa(tsx, ['--eval', `(async () => { ${script} })()`], {
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), MY_SECRET: 'hidden-value-1', PLAIN_NAME: 'hidden-value-2', OTHER: 'stays' },
    extendEnv: false,
  });
  const out = JSON.parse(stdout) as { result: { hidden: string[]; problem: string | null }; environ: string; env: Record<string, string>; kept: string[] };
  expect(out.result).toEqual({ hidden: ['MY_SECRET'], problem: null });
  expect(out.environ).not.toContain('hidden-value');
  expect(out.environ).toContain('OTHER=stays');
  expect(out.env).not.toHaveProperty('MY_SECRET');
  expect(out.env).not.toHaveProperty('PLAIN_NAME');
  expect(out.kept).toEqual(['hidden-value-1', 'hidden-value-2']);
});

it("redacts the values of the variables a policy hands to its agent, whatever their names (api_key_env, env_passthrough)", () => {
  const values = { MODEL_ACCESS: 'model-access-value-123', PLAIN_SETTING: 'passthrough-value-456', SHORT_ONE: '1' };
  Object.assign(process.env, values);
  try {
    const openai = { agent: { kind: 'openai', model: 'm', api_key_env: 'MODEL_ACCESS', max_retries: 0 } } as unknown as LoopPolicy;
    const command = { agent: { kind: 'command', command: 'x', prompt: 'stdin', timeout: 1, env_passthrough: ['PLAIN_SETTING', 'SHORT_ONE'] } } as unknown as LoopPolicy;
    expect(policySecretEnv(openai)).toEqual(['MODEL_ACCESS']);
    expect(policySecretEnv(command)).toEqual(['PLAIN_SETTING', 'SHORT_ONE']);
    const text = 'a model-access-value-123 b passthrough-value-456 c 1';
    expect(createRedactor()(text)).toBe(text);
    declareSecretEnv([...policySecretEnv(openai), ...policySecretEnv(command)]);
    // Values shorter than 8 characters are never redacted (they would match ordinary text).
    expect(createRedactor()(text)).toBe(`a ${REDACTED} b ${REDACTED} c 1`);
  } finally {
    for (const name of Object.keys(values)) delete process.env[name];
  }
});
