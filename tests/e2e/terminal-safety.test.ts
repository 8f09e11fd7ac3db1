// Nothing an agent, a tool or a server sends reaches the terminal raw: not while the
// console is drawn, not in the line printed after quitting, not on stdout or stderr of a
// headless run. Hostile text carries the attacks on terminals seen in public reports:
// OSC 52 (clipboard), OSC 0/2 (title), a screen clear followed by fake output, 8-bit
// C1 controls (CSI U+009B, OSC U+009D), a bidi override, \r and \b.
// Needs `npm run build` (dist/cli.js).
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, startPty, type PtyTerminal } from '../support/pty-terminal.js';

/** The final claim of the hostile agent. */
const CLAIM =
  'all green \u001b]52;c;RVZJTA==\u0007\u001b]0;PWNED-TITLE\u0007\u001b]2;PWNED-ST\u001b\\' +
  '\u001b[2J\u001b[H52 passed\u009b2J\u009d0;C1-TITLE\u009c \u202Edeggar\rOVER\b!';
/** The claim as the exit line must show it: every control visible, on one line. */
const CLAIM_SHOWN =
  'all green ^[]52;c;RVZJTA==^G^[]0;PWNED-TITLE^G^[]2;PWNED-ST^[\\' +
  '^[[2J^[[H52 passed\\u{9b}2J\\u{9d}0;C1-TITLE\\u{9c} \\u{202e}deggar^MOVER^H!';

/**
 * A shell tool's output with the same attacks, printed by `printf` (octal escapes: ESC,
 * BEL, U+009B and U+202E as UTF-8), and a write straight to /dev/tty that must find no
 * terminal: tools run in their own session.
 */
const TOOL_COMMAND =
  "printf '\\033]52;c;VE9PTA==\\007\\033]0;TOOL-TITLE\\007\\033[2J\\033[Hfake tool line \\302\\2332J \\342\\200\\256 tool\\r\\n'; " +
  "printf '\\033]0;TTY-TITLE\\007\\033]52;c;VFRZ\\007' > /dev/tty; true";

/** A string as a YAML double-quoted scalar, every non-ASCII or control character as \uXXXX. */
function yamlString(text: string): string {
  return `"${[...text]
    .map((ch) => {
      const code = ch.codePointAt(0)!;
      if (ch === '"' || ch === '\\') return `\\${ch}`;
      return code < 0x20 || code > 0x7e ? `\\u${code.toString(16).padStart(4, '0')}` : ch;
    })
    .join('')}"`;
}

/** Code points that must never be in what loopdeck writes (Ink's own ESC sequences aside: see {@link rawOutsideInk}). */
const RAW = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;

function rawIn(text: string): string[] {
  return [...text].filter((ch) => RAW.test(ch)).map((ch) => `U+${ch.codePointAt(0)!.toString(16).padStart(4, '0')}`);
}

let dir: string;
const terminals: PtyTerminal[] = [];
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-term-'));
});
afterEach(async () => {
  for (const t of terminals.splice(0)) await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A loop whose scripted agent thinks, runs the hostile tool and claims the goal with the hostile claim. */
function hostileLoop(): string {
  writeFileSync(
    path.join(dir, 'script.yaml'),
    [
      'turns:',
      `  - thought: ${yamlString('look \u001b]0;THOUGHT-TITLE\u0007 here \u202Eevil')}`,
      `    tool_calls: [{ id: t1, name: shell, args: { command: ${yamlString(TOOL_COMMAND)} } }]`,
      `  - final: ${yamlString(CLAIM)}`,
    ].join('\n'),
  );
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    [
      'goal: { objective: survive hostile text }',
      'agent: { kind: scripted, script: script.yaml }',
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "true" }]',
      'approval: { default: allow }',
    ].join('\n'),
  );
  return path.join(dir, 'loop.yaml');
}

/** A loop whose external agent fails at once, its stderr full of the same attacks. */
function failingCommandAgentLoop(): string {
  const command = "printf '\\033]52;c;QUdFTlQ=\\007\\033]0;AGENT-TITLE\\007\\033[2J\\033[H52 passed \\302\\2332J \\342\\200\\256 rtl\\r' >&2; exit 3";
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    [
      'goal: { objective: survive a failing agent }',
      `agent: { kind: command, command: ${yamlString(command)} }`,
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "false" }]',
      'approval: { default: allow }',
    ].join('\n'),
  );
  return path.join(dir, 'loop.yaml');
}

/** Every line in the emulator (scrollback and screen), rows that continue a wider line joined to it. */
function logicalLines(t: PtyTerminal): string[] {
  const buffer = t.term.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < buffer.length; y++) {
    const row = buffer.getLine(y);
    if (!row) continue;
    const text = row.translateToString(true);
    if (row.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  return lines;
}

/** What the hostile server streams instead of a chunk: not JSON, so the SDK prints it with `console.error`. */
const SSE_LINE = '{not json \u001b]0;SSE-TITLE\u0007\u001b]52;c;U1NF\u0007\u001b[2J\u001b[H52 passed \u009b2J \u202Ertl';

/** A loopback chat-completions server that answers every request with {@link SSE_LINE}. */
async function hostileServer(): Promise<Server> {
  const server = createServer(async (req, res) => {
    for await (const _ of req);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(`data: ${SSE_LINE}\n\n`);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  return server;
}
const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A loop whose model is {@link hostileServer}; its key is named explicitly. */
function openaiLoop(server: Server): string {
  const { port } = server.address() as AddressInfo;
  writeFileSync(
    path.join(dir, 'loop.yaml'),
    [
      'goal: { objective: survive a hostile server }',
      `agent: { kind: openai, model: test-model, base_url: "http://127.0.0.1:${port}/v1", api_key_env: LOOPDECK_TEST_KEY, max_retries: 0 }`,
      'workspace: { path: ., copy: none }',
      'verify: [{ command: "false" }]',
    ].join('\n'),
  );
  return path.join(dir, 'loop.yaml');
}

/** What the emulator was made to do: titles set, OSC 52 and other OSC sequences, screen erases, resets. */
function recordActions(t: PtyTerminal) {
  const acted: string[] = [];
  t.term.onTitleChange((title) => acted.push(`title ${title}`));
  for (const id of [0, 1, 2, 52]) t.term.parser.registerOscHandler(id, (data) => (acted.push(`OSC ${id};${data}`), false));
  return acted;
}

describe('the console in a real terminal, with a hostile agent', { timeout: 60_000 }, () => {
  it('after the run and after q: title and clipboard untouched, no clear, the claim shown with its escapes visible', async () => {
    const config = hostileLoop();
    const t = startPty({ args: ['run', '--config', config], cwd: dir, cols: 240, rows: 40 });
    terminals.push(t);
    const acted = recordActions(t);
    let erasedAfterQuit = 0;
    let quitting = false;
    t.term.parser.registerCsiHandler({ final: 'J' }, () => (quitting && erasedAfterQuit++, false));
    // The tool call is compound (;), so it is asked about even with approval.default: allow.
    await t.waitUntil((s) => /Approve tool call shell \(t1\)/.test(s) && /\[y\] approve/.test(s), 'the approval prompt');
    t.press('y');
    await t.waitFor(/Run finished: goal_met/, 30_000);
    const during = t.output;
    quitting = true;
    t.press('q');
    const { code } = await t.exit;
    expect(code, t.describe()).toBe(0);

    // Nothing acted on the terminal, before, during or after the console.
    expect(acted, t.describe()).toEqual([]);
    expect(erasedAfterQuit, t.describe()).toBe(0);
    // No C1 control, bidi control, OSC or other stray control byte in anything written.
    expect(rawIn(t.output.replace(/\u001b(?:\[[0-?]*[ -/]*[@-~]|[78=>])|[\r\n\u0007\u0008]/g, ''))).toEqual([]);
    expect(t.output).not.toContain('\u001b]');
    expect(during).not.toMatch(/\u001b\[2J\u001b\[H(52 passed|fake tool line)/);

    // The exit line shows the claim, escapes visible, on one line; the fake "52 passed"
    // is inside it, never a line of its own.
    const lines = logicalLines(t);
    const exitLine = lines.find((l) => l.startsWith('loopdeck: goal_met:'));
    expect(exitLine, t.describe()).toBe(`loopdeck: goal_met: ${CLAIM_SHOWN}`);
    expect(lines.filter((l) => /^\s*52 passed/.test(l)), t.describe()).toEqual([]);
    expect(lines.some((l) => /^loopdeck: log \S+\/events\.jsonl; workspace \S+$/.test(l)), t.describe()).toBe(true);
  });

  it("an agent's failure quoting its stderr: the exit line shows it escaped, the terminal untouched", async () => {
    const config = failingCommandAgentLoop();
    const t = startPty({ args: ['run', '--config', config], cwd: dir, cols: 240, rows: 40 });
    terminals.push(t);
    const acted = recordActions(t);
    await t.waitFor(/Run finished: failed/, 30_000);
    t.press('q');
    const { code } = await t.exit;
    expect(code, t.describe()).toBe(2);
    expect(acted, t.describe()).toEqual([]);
    expect(t.output).not.toContain('\u001b]');
    const exitLine = logicalLines(t).find((l) => l.startsWith('loopdeck: failed:'));
    expect(exitLine, t.describe()).toContain('stderr: ^[]52;c;QUdFTlQ=^G^[]0;AGENT-TITLE^G^[[2J^[[H52 passed \\u{9b}2J \\u{202e} rtl');
  });

  it('a server line a library logs while the console is drawn: the terminal untouched', async () => {
    const config = openaiLoop(await hostileServer());
    const t = startPty({ args: ['run', '--config', config], cwd: dir, cols: 240, rows: 40, env: { LOOPDECK_TEST_KEY: 'test-key' } });
    terminals.push(t);
    const acted = recordActions(t);
    await t.waitFor(/Run finished: failed/, 30_000);
    t.press('q');
    await t.exit;
    expect(acted, t.describe()).toEqual([]);
    expect(t.output).not.toContain('\u001b]');
    expect(t.output).not.toMatch(/\u001b\[2J\u001b\[H52 passed/);
    expect(rawIn(t.output.replace(/\u001b(?:\[[0-?]*[ -/]*[@-~]|[78=>])|[\r\n\u0007\u0008]/g, ''))).toEqual([]);
    expect(logicalLines(t).some((l) => l.includes('not JSON inside the event stream: {not json ^[]0;SSE-TITLE^G^[]52;c;U1NF^G')), t.describe()).toBe(true);
  });
});

/** Runs the built CLI without a terminal; stdout and stderr as text. */
function cli(args: string[]) {
  return execa('node', [CLI, ...args], { cwd: dir, reject: false, env: { OPENAI_API_KEY: '', LOOPDECK_TEST_KEY: 'test-key' } });
}

/** Every stdout line parsed as JSON (a line that is not fails the test). */
function jsonLines(stdout: string): Array<{ type: string; data: Record<string, any> }> {
  return stdout
    .trim()
    .split('\n')
    .map((line, i) => {
      try {
        return JSON.parse(line);
      } catch {
        throw new Error(`stdout line ${i + 1} is not JSON: ${line.slice(0, 200)}`);
      }
    });
}

describe('headless and the other commands, with hostile text', { timeout: 60_000 }, () => {
  it('run --headless: JSONL on stdout escapes every control and bidi character, stderr shows them visibly, the data is intact', async () => {
    const result = await cli(['run', '--config', hostileLoop(), '--headless', '--approve', 'all']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(rawIn(result.stdout.replace(/\n/g, ''))).toEqual([]);
    expect(rawIn(result.stderr.replace(/\n/g, ''))).toEqual([]);
    const events = jsonLines(result.stdout);
    // Escaped, not lost: the JSON still carries exactly what the agent and the tool sent.
    expect(events.at(-1)).toMatchObject({ type: 'session.complete', data: { reason: 'goal_met', summary: CLAIM } });
    const output = events.find((e) => e.type === 'tool.result')?.data.result.output as string;
    expect(output).toContain('\u001b]52;c;VE9PTA==\u0007');
    expect(output).toContain('\u009b2J \u202E tool\r');
    // The tool found no terminal to write to (it runs in a session of its own): every line
    // on stderr is loopdeck's own (its warnings up front, the outcome, where the log is).
    const lines = result.stderr.split('\n').filter((line) => line !== '');
    expect(lines.filter((line) => !line.startsWith('loopdeck: '))).toEqual([]);
    expect(lines).toContain(`loopdeck: goal_met: ${CLAIM_SHOWN}`);

    // The log on disk and its replay are escaped the same way.
    const runs = path.join(dir, '.loopdeck/runs');
    const log = path.join(runs, readdirSync(runs)[0]!, 'events.jsonl');
    expect(rawIn(readFileSync(log, 'utf8').replace(/\n/g, ''))).toEqual([]);
    const replay = await cli(['replay', log, '--headless']);
    expect(replay.exitCode, replay.stderr).toBe(0);
    expect(rawIn(replay.stdout.replace(/\n/g, ''))).toEqual([]);
    expect(JSON.parse(replay.stdout).done.summary).toBe(CLAIM);
  });

  it("run --headless with a failing agent: its stderr, quoted in the summary, is escaped on stderr and in the JSONL", async () => {
    const result = await cli(['run', '--config', failingCommandAgentLoop(), '--headless']);
    expect(result.exitCode, result.stderr).toBe(2);
    expect(rawIn(result.stdout.replace(/\n/g, ''))).toEqual([]);
    expect(rawIn(result.stderr.replace(/\n/g, ''))).toEqual([]);
    expect(result.stderr).toContain('stderr: ^[]52;c;QUdFTlQ=^G^[]0;AGENT-TITLE^G^[[2J^[[H52 passed \\u{9b}2J \\u{202e} rtl');
    // One line per part: the quoted stderr cannot start a line of its own.
    expect(result.stderr.split('\n').filter((l) => l !== '').every((l) => l.startsWith('loopdeck: '))).toBe(true);
    expect(jsonLines(result.stdout).at(-1)?.data.summary).toContain('\u001b]0;AGENT-TITLE\u0007');
    // What the run left on disk for a person to `cat` is escaped too: the log and the policy.
    const runs = path.join(dir, '.loopdeck/runs');
    const runDir = path.join(runs, readdirSync(runs)[0]!);
    const files = readdirSync(runDir);
    expect(files).toEqual(expect.arrayContaining(['events.jsonl', 'policy.json']));
    for (const file of files) expect(rawIn(readFileSync(path.join(runDir, file), 'utf8').replace(/\n/g, '')), file).toEqual([]);
    expect(readFileSync(path.join(runDir, 'events.jsonl'), 'utf8')).toContain('\\u009b');
  });

  it('run --headless against a server sending hostile text: what it sent is escaped on stderr, nothing of it on stdout', async () => {
    const result = await cli(['run', '--config', openaiLoop(await hostileServer()), '--headless']);
    expect(result.exitCode, result.stderr).toBe(2);
    expect(rawIn(result.stdout.replace(/\n/g, ''))).toEqual([]);
    expect(rawIn(result.stderr.replace(/\n/g, ''))).toEqual([]);
    expect(result.stderr).toContain('the server sent a line that is not JSON inside the event stream: {not json ^[]0;SSE-TITLE^G^[]52;c;U1NF^G^[[2J^[[H52 passed \\u{9b}2J \\u{202e}rtl');
    // stdout stays JSONL: a library's log line is never mixed into it.
    jsonLines(result.stdout);
  });

  it('validate, check and config errors echo file content escaped', async () => {
    const objective = 'ok \u001b]0;VALIDATE-TITLE\u0007\u009b2J\u202Eevil';
    const config = hostileLoop();
    const rest = ['agent: { kind: scripted, script: script.yaml }', 'workspace: { path: ., copy: none }', 'verify: [{ command: "true" }]'];
    writeFileSync(config, [`goal: { objective: ${yamlString(objective)} }`, ...rest].join('\n'));
    // A goal may hold no control character (escaped in the file or not): the error quotes it escaped.
    const validate = await cli(['validate', config]);
    expect(validate.exitCode).toBe(1);
    expect(validate.stdout).toBe('');
    expect(validate.stderr).toContain('goal.objective: expected text without control characters (tab and newline aside), found U+001B (ESC) in "ok \\u001b]0;VALIDATE-TITLE\\u0007\\u{9b}2J\\u{202e}evil"');
    expect(rawIn(validate.stderr.replace(/\n/g, ''))).toEqual([]);

    // A misspelt key, itself hostile: the error names it, escaped.
    writeFileSync(config, [`goal: { objective: x, ${yamlString('objectiv\u001b]0;KEY-TITLE\u0007\u009b2J\u202E')}: y }`, ...rest].join('\n'));
    const invalid = await cli(['validate', config]);
    expect(invalid.exitCode).toBe(1);
    expect(invalid.stderr).toContain('KEY-TITLE');
    expect(rawIn(invalid.stderr.replace(/\n/g, ''))).toEqual([]);

    // A checkpoint folder whose file name and content are hostile.
    writeFileSync(config, ['goal: { objective: x }', ...rest].join('\n'));
    const checkpoints = path.join(dir, 'checkpoints');
    await import('node:fs').then((fs) => fs.mkdirSync(checkpoints));
    writeFileSync(path.join(checkpoints, '01-\u001b]0;FILE-TITLE\u0007\u009b2J\u202E.json'), JSON.stringify({ iteration: 1, observed: { 'tests.failing': 1 }, reported: {} }));
    for (const json of [[], ['--json']]) {
      const check = await cli(['check', checkpoints, '--config', config, ...json]);
      expect(check.exitCode, check.stderr).toBe(0);
      expect(check.stdout).toContain('FILE-TITLE');
      expect(rawIn(check.stdout.replace(/\n/g, ''))).toEqual([]);
    }
    writeFileSync(path.join(checkpoints, '02.json'), `{"observed": {"tests.failing": "\u001b]0;CONTENT-TITLE\u0007\u009b2J\u202E"}}`);
    const bad = await cli(['check', checkpoints, '--config', config]);
    expect(bad.exitCode).toBe(1);
    expect(rawIn(bad.stderr.replace(/\n/g, ''))).toEqual([]);
  });
});
