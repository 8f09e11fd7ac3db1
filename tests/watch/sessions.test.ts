// Picking the session to watch: the default folders under HOME, newest first, --since.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { defaultSessionFolders, findSessions, homeFolder, parseSince } from '../../src/watch/sessions.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

it('finds Claude Code and Codex session files under HOME, newest first, without following links', () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-home-'));
  dirs.push(home);
  expect(homeFolder({ HOME: home })).toBe(home);
  const [claude, codex] = defaultSessionFolders(home);
  mkdirSync(path.join(claude!, 'p'), { recursive: true });
  mkdirSync(path.join(codex!, '2026/12/01'), { recursive: true });
  const a = path.join(claude!, 'p/a.jsonl');
  const b = path.join(codex!, '2026/12/01/rollout-b.jsonl');
  writeFileSync(a, '{}\n');
  writeFileSync(b, '{}\n');
  writeFileSync(path.join(claude!, 'p/notes.txt'), 'x');
  symlinkSync('/', path.join(claude!, 'p/loop'));
  utimesSync(a, 1_000, 1_000);
  utimesSync(b, 2_000, 2_000);
  expect(findSessions([claude!, codex!, path.join(home, 'missing')]).map((s) => s.file)).toEqual([b, a]);
  expect(findSessions([claude!, codex!], 1_500_000).map((s) => s.file)).toEqual([b]);
});

it('reads --since as a time back from now or as a date, and refuses anything else', () => {
  const now = Date.parse('2026-12-01T08:00:00Z');
  expect(parseSince('90m', now)).toBe(now - 90 * 60_000);
  expect(parseSince('1h30m', now)).toBe(now - 90 * 60_000);
  expect(parseSince('3d', now)).toBe(now - 3 * 86_400_000);
  expect(parseSince('2026-11-30T08:00:00Z', now)).toBe(Date.parse('2026-11-30T08:00:00Z'));
  for (const bad of ['', 'yesterday', '90', '-2h', '0m']) expect(() => parseSince(bad, now)).toThrow(/--since .*expected a time back from now/);
});
