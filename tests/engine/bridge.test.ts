// The run's socket and `loopdeck bridge`: a real Unix socket, the built CLI as the hook
// program (`node dist/cli.js bridge`, needs `npm run build`), the hook input on its stdin.
// Every way it can go wrong denies (fails closed) and says why.
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync, writeFileSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startBridgeServer, type BridgeHandler, type BridgeServer } from '../../src/engine/bridge/server.js';
import type { BridgeRequest } from '../../src/engine/bridge/protocol.js';
import { runBridge } from '../../src/bridge-cli.js';

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'dist/cli.js');
let dir: string;
let server: BridgeServer | null = null;
let seen: BridgeRequest[];

beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ld-bridge-'));
  seen = [];
});
afterEach(async () => {
  await server?.close();
  server = null;
  rmSync(dir, { recursive: true, force: true });
});

function start(handle: BridgeHandler = async () => ({ decision: 'allow', reason: 'fine' }), run = 'run-1'): BridgeServer {
  server = startBridgeServer({
    run,
    runDir: dir,
    base: dir,
    handle: (request) => {
      seen.push(request);
      return handle(request);
    },
  });
  return server;
}

const claudeInput = (command: string, id = 'toolu_1') =>
  JSON.stringify({ session_id: 's', transcript_path: '/t.jsonl', cwd: dir, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: id });

function bridge(format: string, input: string, args: string[] = [], env: Record<string, string> = {}) {
  return execa('node', [cli, 'bridge', '--run', 'run-1', '--format', format, ...args], { input, reject: false, env, timeout: 20_000 });
}

/** Sends one raw line to the socket and reads the answer line. */
function raw(socket: string, line: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const conn = net.createConnection(socket, () => conn.write(line));
    let text = '';
    conn.setEncoding('utf8');
    conn.on('data', (chunk: string) => (text += chunk));
    conn.on('end', () => resolve(JSON.parse(text.split('\n')[0]!) as Record<string, unknown>));
    conn.on('error', reject);
  });
}

describe('the socket', () => {
  it('lives in a fresh 0700 folder beside a 0600 token, is named in bridge.json, and goes when closed', async () => {
    const s = start();
    const folder = path.dirname(s.socket);
    expect(path.dirname(folder)).toBe(dir);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(s.tokenFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(s.tokenFile, 'utf8')).toMatch(/^[0-9a-f]{64}$/);
    const record = JSON.parse(readFileSync(path.join(dir, 'bridge.json'), 'utf8'));
    expect(record).toMatchObject({ protocol: 1, run: 'run-1', socket: s.socket, token_file: s.tokenFile, pid: process.pid });
    expect(JSON.stringify(record)).not.toContain(readFileSync(s.tokenFile, 'utf8'));
    await s.close();
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(path.join(dir, 'bridge.json'))).toBe(false);
  });

  it('refuses a base folder whose socket path would be too long, naming the path', () => {
    const deep = path.join(dir, 'x'.repeat(60), 'y'.repeat(40));
    mkdirSync(deep, { recursive: true });
    expect(() => startBridgeServer({ run: 'r', runDir: dir, base: deep, handle: async () => ({ decision: 'allow', reason: '' }) })).toThrow(
      /approval socket would be .*loopdeck-XXXXXX\/s \(\d+ bytes\), longer than the 100 bytes .*XDG_RUNTIME_DIR or TMPDIR/,
    );
  });

  it('uses $XDG_RUNTIME_DIR, and the temp folder when a socket there would be too long', async () => {
    const saved = process.env.XDG_RUNTIME_DIR;
    const deep = path.join(dir, 'x'.repeat(60), 'y'.repeat(40));
    mkdirSync(deep, { recursive: true });
    try {
      process.env.XDG_RUNTIME_DIR = dir;
      const near = startBridgeServer({ run: 'r', runDir: dir, handle: async () => ({ decision: 'allow', reason: '' }) });
      expect(path.dirname(path.dirname(near.socket))).toBe(dir);
      await near.close();
      process.env.XDG_RUNTIME_DIR = deep;
      const far = startBridgeServer({ run: 'r', runDir: dir, handle: async () => ({ decision: 'allow', reason: '' }) });
      expect(far.socket.startsWith(deep)).toBe(false);
      expect(Buffer.byteLength(far.socket)).toBeLessThanOrEqual(100);
      await far.close();
    } finally {
      if (saved === undefined) delete process.env.XDG_RUNTIME_DIR;
      else process.env.XDG_RUNTIME_DIR = saved;
    }
  });

  it('denies a request with a wrong token, another run id, garbage, an unknown version, or one too long, without asking the run', async () => {
    const s = start();
    const token = readFileSync(s.tokenFile, 'utf8');
    const request = { v: 1, type: 'approve', run: 'run-1', token, cli: 'claude', tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_1' };
    expect(await raw(s.socket, `${JSON.stringify({ ...request, token: 'f'.repeat(64) })}\n`)).toEqual({ v: 1, decision: 'deny', reason: 'wrong token for this run' });
    expect(await raw(s.socket, `${JSON.stringify({ ...request, token: '' })}\n`)).toMatchObject({ decision: 'deny', reason: 'wrong token for this run' });
    expect(await raw(s.socket, `${JSON.stringify({ ...request, run: 'run-2' })}\n`)).toMatchObject({ decision: 'deny', reason: expect.stringContaining('names run "run-2"') });
    expect(await raw(s.socket, 'not json at all\n')).toMatchObject({ decision: 'deny', reason: 'the request is not JSON' });
    expect(await raw(s.socket, `${JSON.stringify({ ...request, v: 2 })}\n`)).toMatchObject({ decision: 'deny', reason: expect.stringContaining('unsupported protocol version 2') });
    expect(await raw(s.socket, `${JSON.stringify({ ...request, tool_input: 'rm -rf /' })}\n`)).toMatchObject({ decision: 'deny', reason: 'tool_input is not a JSON object' });
    expect(await raw(s.socket, `${JSON.stringify({ ...request, cli: 'aider' })}\n`)).toMatchObject({ decision: 'deny', reason: expect.stringContaining('unknown cli "aider"') });
    expect(await raw(s.socket, 'x'.repeat(5 * 1024 * 1024))).toMatchObject({ decision: 'deny', reason: expect.stringContaining('longer than') });
    expect(seen).toEqual([]);
    // The right token is heard.
    expect(await raw(s.socket, `${JSON.stringify(request)}\n`)).toEqual({ v: 1, decision: 'allow', reason: 'fine' });
    expect(seen).toHaveLength(1);
  });
});

describe('loopdeck bridge', () => {
  it('asks the run and prints the allow in Claude Code hook output, exit 0', async () => {
    const s = start();
    const result = await bridge('claude', claudeInput('npm test'), ['--socket', s.socket]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'fine' } });
    expect(seen).toEqual([
      { v: 1, type: 'approve', run: 'run-1', token: readFileSync(s.tokenFile, 'utf8'), cli: 'claude', tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 'toolu_1' },
    ]);
  });

  it("prints a deny with the operator's note in each CLI's own format", async () => {
    const s = start(async () => ({ decision: 'deny', reason: 'denied by the operator of loopdeck: use the fixture' }));
    const claude = await bridge('claude', claudeInput('rm -rf build'), ['--socket', s.socket]);
    expect(claude.exitCode).toBe(0);
    expect(JSON.parse(claude.stdout).hookSpecificOutput).toEqual({ hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'denied by the operator of loopdeck: use the fixture' });
    const codexInput = JSON.stringify({ session_id: 's', turn_id: 't', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'call-1', tool_input: { command: 'rm -rf build' } });
    const codex = await bridge('codex', codexInput, ['--socket', s.socket]);
    expect([codex.exitCode, codex.stdout, codex.stderr.trim()]).toEqual([2, '', 'denied by the operator of loopdeck: use the fixture']);
    const geminiInput = JSON.stringify({ session_id: 's', transcript_path: '/t', cwd: dir, hook_event_name: 'BeforeTool', timestamp: '2026-12-01T00:00:00Z', tool_name: 'run_shell_command', tool_input: { command: 'rm -rf build' } });
    const gemini = await runBridge({ run: 'run-1', format: 'gemini', socket: s.socket, timeoutSeconds: 5 }, geminiInput);
    expect(gemini.code).toBe(0);
    expect(JSON.parse(gemini.stdout)).toEqual({ decision: 'deny', reason: 'denied by the operator of loopdeck: use the fixture' });
    expect(seen.map((r) => [r.cli, r.tool_name, r.tool_use_id])).toEqual([
      ['claude', 'Bash', 'toolu_1'],
      ['codex', 'Bash', 'call-1'],
      ['gemini', 'run_shell_command', null],
    ]);
  });

  it('socket from the environment; Codex allow is {} and Gemini allow is its decision', async () => {
    const s = start();
    const codex = await bridge('codex', JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }), [], { LOOPDECK_BRIDGE_SOCKET: s.socket });
    expect([codex.exitCode, codex.stdout.trim()]).toEqual([0, '{}']);
    const gemini = await bridge('gemini', JSON.stringify({ hook_event_name: 'BeforeTool', tool_name: 'read_file', tool_input: { file_path: 'a' } }), ['--socket', s.socket]);
    expect(JSON.parse(gemini.stdout)).toEqual({ decision: 'allow' });
  });

  const denied = (stdout: string) => JSON.parse(stdout).hookSpecificOutput as { permissionDecision: string; permissionDecisionReason: string };

  it('fails closed when no loopdeck listens: the socket is gone, or was never given', async () => {
    const s = start();
    const socket = s.socket;
    await s.close();
    server = null;
    const gone = await bridge('claude', claudeInput('ls'), ['--socket', socket]);
    expect(gone.exitCode).toBe(0);
    expect(denied(gone.stdout)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/cannot read the run's token.*fails closed/) });
    // The folder and token are there but nothing listens (loopdeck was killed).
    const folder = mkdtempSync(path.join(dir, 'dead-'));
    writeFileSync(path.join(folder, 'token'), 'a'.repeat(64));
    const dead = await bridge('claude', claudeInput('ls'), ['--socket', path.join(folder, 's')]);
    expect(denied(dead.stdout)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/cannot reach loopdeck at .* ENOENT/) });
    const none = await bridge('codex', JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }), [], { LOOPDECK_BRIDGE_SOCKET: '' });
    expect([none.exitCode, none.stderr]).toEqual([2, expect.stringContaining('no socket given')]);
  });

  it('blocks the call when its own command line is wrong: no --run, no or an unknown --format (exit 2, never the 1 of a failed hook)', async () => {
    for (const args of [['--format', 'claude'], ['--run', 'run-1'], ['--run', 'run-1', '--format', 'foo']]) {
      const wrong = await execa('node', [cli, 'bridge', ...args], { input: claudeInput('ls'), reject: false, timeout: 20_000 });
      expect([wrong.exitCode, args.join(' ')]).toEqual([2, args.join(' ')]);
      expect(wrong.stderr).toContain('loopdeck bridge: the call is denied');
    }
    const help = await execa('node', [cli, 'bridge', '--help'], { reject: false });
    expect(help.exitCode).toBe(0);
  });

  it('fails closed on a wrong token and on another run id', async () => {
    const s = start(async () => ({ decision: 'allow', reason: 'never' }), 'run-1');
    writeFileSync(s.tokenFile, 'b'.repeat(64));
    const wrong = await bridge('claude', claudeInput('ls'), ['--socket', s.socket]);
    expect(denied(wrong.stdout)).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: 'wrong token for this run' });
    const other = await execa('node', [cli, 'bridge', '--run', 'run-9', '--format', 'claude', '--socket', s.socket], { input: claudeInput('ls'), reject: false });
    expect(denied(other.stdout).permissionDecision).toBe('deny');
    expect(seen).toEqual([]);
  });

  it('fails closed on hook input it cannot read, before asking', async () => {
    const s = start();
    // Through the built CLI: empty stdin and a cut-off object.
    for (const input of ['', '{"tool_name": "Bash", "tool_input": {"command": "ls"}']) {
      const result = await bridge('claude', input, ['--socket', s.socket]);
      expect(result.exitCode).toBe(0);
      expect(denied(result.stdout), input).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(/not JSON.*fails closed/) });
    }
    // The same function in process for the other shapes.
    for (const [input, why] of [
      ['[1,2]', /not a JSON object/],
      ['null', /not a JSON object/],
      [JSON.stringify({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }), /for "PostToolUse", not PreToolUse/],
      [JSON.stringify({ hook_event_name: 'PreToolUse', tool_input: { command: 'ls' } }), /no tool_name/],
      [JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: 'ls' }), /no tool_input object/],
      [JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: ['ls'] }), /no tool_input object/],
    ] as const) {
      const out = await runBridge({ run: 'run-1', format: 'claude', socket: s.socket, timeoutSeconds: 5 }, input);
      expect(out.code).toBe(0);
      expect(denied(out.stdout), input).toMatchObject({ permissionDecision: 'deny', permissionDecisionReason: expect.stringMatching(why) });
    }
    expect(seen).toEqual([]);
  });

  it('fails closed when the answer does not come in time', async () => {
    const s = start(() => new Promise(() => undefined));
    const started = Date.now();
    const result = await bridge('gemini', JSON.stringify({ hook_event_name: 'BeforeTool', tool_name: 'run_shell_command', tool_input: { command: 'ls' } }), ['--socket', s.socket, '--timeout', '1']);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ decision: 'deny', reason: expect.stringMatching(/no answer from loopdeck within 1s.*fails closed/) });
    expect(seen).toHaveLength(1);
  });

  it('a bad --timeout is a deny with exit 2, never the exit 1 a CLI reads as "go on"', async () => {
    const s = start();
    const result = await bridge('codex', JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'ls' } }), ['--socket', s.socket, '--timeout', 'soon']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/--timeout "soon" is not a number/);
  });
});
