/**
 * Python takes a cached `.pyc` as current when its source has the same size and the same
 * modification time in whole seconds. A fix of the same length made within the second after
 * an observer or a verify imported the file must still be measured as the new code: the
 * commands loopdeck runs write no cache files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runShell } from '../../src/engine/process.js';

const hasPython = spawnSync('python3', ['--version']).status === 0;
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const CHECK = 'python3 -c "import calc, sys; sys.exit(0 if calc.add(1, 2) == 3 else 1)"';

describe.skipIf(!hasPython)('a Python fix of the same size within the same second (python3 not installed: skipped)', () => {
  it('is measured as the new code, by the command that imported the old one and by the next', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-pycache-'));
    dirs.push(dir);
    const source = path.join(dir, 'calc.py');
    writeFileSync(source, 'def add(a, b): return a - b\n');
    const { atime, mtime } = statSync(source);
    expect((await runShell(CHECK, { cwd: dir, timeoutSeconds: 30 })).exit_code).toBe(1);
    // The fix: as long as the bug, and stamped with the same second, as a fast edit is.
    writeFileSync(source, 'def add(a, b): return a + b\n');
    utimesSync(source, atime, mtime);
    expect((await runShell(CHECK, { cwd: dir, timeoutSeconds: 30 })).exit_code).toBe(0);
    expect(existsSync(path.join(dir, '__pycache__'))).toBe(false);
  });
});
