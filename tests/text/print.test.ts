// The ways loopdeck prints outside the console, in a real child process: what reaches
// stdout and stderr is sanitized, and console output (a library's log line, a Node
// warning) goes to stderr, sanitized, never into stdout (the JSONL stream when headless).
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const HOSTILE = '\u001b]52;c;RVZJTA==\u0007\u001b]0;TITLE\u0007\u001b[2J\u009b2J\u202Eevil\rX';
/** Raw code points no output may hold (newlines aside). */
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;

/** Runs `body` in a child node (TypeScript through tsx) with `print` imported from src/text/print.ts. */
function child(body: string) {
  const script = `const print = await import(${JSON.stringify(path.join(root, 'src/text/print.ts'))});\nconst hostile = ${JSON.stringify(HOSTILE)};\n${body}`;
  return execa(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, reject: false });
}

describe('printing outside the console', () => {
  it('printLine, printJson and printError: sanitized text, escaped JSON that parses back', async () => {
    const result = await child(`print.printLine('line ' + hostile); print.printJson({ text: hostile }); print.printError('error ' + hostile + '\\nsecond line');`);
    expect(result.exitCode, result.stderr).toBe(0);
    const [line, json] = result.stdout.split('\n');
    expect(line).toBe('line ^[]52;c;RVZJTA==^G^[]0;TITLE^G^[[2J\\u{9b}2J\\u{202e}evil^MX');
    expect(JSON.parse(json!)).toEqual({ text: HOSTILE });
    expect(result.stderr).toBe('error ^[]52;c;RVZJTA==^G^[]0;TITLE^G^[[2J\\u{9b}2J\\u{202e}evil^MX\nsecond line');
    expect(result.stdout.replace(/\n/g, '')).not.toMatch(RAW);
  });

  it('printWarnings: each warning on its line of stderr, prefixed and sanitized, in one write; none writes nothing', async () => {
    const result = await child(
      [
        'let writes = 0;',
        'const write = process.stderr.write.bind(process.stderr);',
        'process.stderr.write = (...args) => { writes += 1; return write(...args); };',
        "print.printWarnings([]);",
        "print.printWarnings(Array.from({ length: 1000 }, (_, i) => 'f.jsonl:' + (i + 1) + ': skipped ' + hostile));",
        "write('writes ' + writes + '\\n');",
      ].join('\n'),
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = result.stderr.split('\n');
    expect(lines).toHaveLength(1001);
    expect(lines[0]).toBe('loopdeck: f.jsonl:1: skipped ^[]52;c;RVZJTA==^G^[]0;TITLE^G^[[2J\\u{9b}2J\\u{202e}evil^MX');
    expect(lines[999]).toMatch(/^loopdeck: f\.jsonl:1000: skipped /);
    expect(lines[1000]).toBe('writes 1');
  });

  it('guardConsole: every console method and Node warnings print sanitized, on stderr only', async () => {
    const result = await child(
      [
        'print.guardConsole();',
        "console.log('log %s', hostile);",
        "console.info('info', hostile);",
        "console.warn('warn', { nested: hostile });",
        "console.error('error', hostile);",
        "console.table([{ cell: hostile }]);",
        "console.dir({ dir: hostile });",
        "process.emitWarning('warning ' + hostile);",
        "await new Promise((resolve) => setImmediate(resolve));",
      ].join('\n'),
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr.replace(/\n/g, '')).not.toMatch(RAW);
    expect(result.stderr).toContain('log ^[]52;c;RVZJTA==^G^[]0;TITLE^G^[[2J\\u{9b}2J\\u{202e}evil^MX');
    expect(result.stderr).toContain('error ^[]52;c;RVZJTA==^G');
    expect(result.stderr).toContain('Warning: warning ^[]52;c;RVZJTA==^G');
    expect(result.stderr).toMatch(/^info /m);
    expect(result.stderr).toMatch(/^warn /m);
  });

  it('without the guard the same console call is raw (what the guard prevents)', async () => {
    const result = await child("console.error('error', hostile);");
    expect(result.stderr).toContain(HOSTILE);
  });
});
