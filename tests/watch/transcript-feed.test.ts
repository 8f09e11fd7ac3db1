// A watched transcript turned into events: the repetition guard, the budget, unknown usage
// and bad lines, on lines in the documented shapes, folded as the console folds them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { defaultAuditPolicy } from '../../src/audit-cli.js';
import type { LoopEvent } from '../../src/engine/events.js';
import { fold } from '../../src/engine/fold.js';
import { alertOf } from '../../src/watch/alerts.js';
import { EventSink } from '../../src/watch/events.js';
import { TranscriptFeed, type WatchSettings } from '../../src/watch/transcript-feed.js';
import { watchSettingsOf } from '../../src/watch/watch.js';
import { toolResult, toolUse } from '../support/claude-lines.js';

function feedWith(limits: Partial<WatchSettings['limits']> = {}) {
  const events: LoopEvent[] = [];
  const base = watchSettingsOf(defaultAuditPolicy());
  const settings = { ...base, limits: { ...base.limits, ...limits } };
  const feed = new TranscriptFeed(new EventSink('watch-test', () => 1000, (e) => events.push(e)), settings, () => 0);
  feed.begin('/tmp/session.jsonl', null);
  const lines = (...texts: string[]) => feed.take(texts.map((text) => ({ kind: 'line' as const, text })));
  return { events, feed, lines };
}

const types = (events: readonly LoopEvent[]) => events.map((e) => e.type);
const alerts = (events: readonly LoopEvent[]) => events.map(alertOf).filter((a): a is string => a !== null);

it('raises the repetition alert at the third identical call whose earlier tries gave the same result', () => {
  const { events, lines } = feedWith();
  for (const n of [1, 2]) lines(toolUse(`t${n}`, 'Bash', { command: 'npm test' }), toolResult(`t${n}`, 'FAIL\n1 failing', true));
  expect(alerts(events)).toEqual([]);
  lines(toolUse('t3', 'Bash', { command: 'npm test' }));
  const last = events.slice(-2);
  expect(types(last)).toEqual(['tool.call', 'repetition.detected']);
  expect(alerts(events)).toEqual([expect.stringMatching(/^repetition: repeat rule: the same Bash call 3× within the last 3 calls/)]);
  expect(fold(events).alerts).toHaveLength(1);
});

it('does not alert on a poll whose results keep changing', () => {
  const { events, lines } = feedWith();
  for (const n of [1, 2, 3, 4]) lines(toolUse(`p${n}`, 'Bash', { command: 'gh run view 42' }), toolResult(`p${n}`, `step ${n} of 9 done`));
  expect(alerts(events)).toEqual([]);
});

it('keeps a malformed line as a notice and goes on reading', () => {
  const { events, lines } = feedWith();
  lines('oops, not json {', toolUse('a', 'Read', { file_path: 'x' }), '{"type":"assistant","message":', toolUse('b', 'Read', { file_path: 'y' }));
  const notices = events.filter((e) => e.type === 'agent.notice').map((e) => (e.data as { text: string }).text);
  expect(notices).toContain('line 1 is not JSON, left out: oops, not json {');
  expect(notices).toContain('reading the transcript as claude-stream-json');
  expect(notices.some((n) => n.startsWith('claude-stream-json: a line that is not JSON'))).toBe(true);
  expect(events.filter((e) => e.type === 'tool.call')).toHaveLength(2);
});

it('shows tokens a session reports and cost it never reports as unknown, never as 0', () => {
  const { events, lines } = feedWith();
  lines(toolUse('a', 'Read', { file_path: 'x' }), toolUse('b', 'Read', { file_path: 'y' }));
  const state = fold(events);
  expect(state.usage.tokens).toBe(220);
  expect(state.unreported).toEqual(['cost_usd']);
  expect(events.filter((e) => e.type === 'agent.usage' && e.data.unreported)).toHaveLength(1);
});

it('marks tokens unknown while a Codex turn runs, and counts them when the turn reports them', () => {
  const { events, lines } = feedWith();
  const codex = readFileSync(path.resolve(import.meta.dirname, '../fixtures/transcripts/codex-exec.jsonl'), 'utf8').trim().split('\n');
  lines(...codex);
  const state = fold(events);
  expect(state.unreported).toEqual(expect.arrayContaining(['tokens', 'cost_usd']));
  expect(state.usage.tokens).toBeGreaterThan(0);
});

it('alerts once when a budget limit is reached, and never judges a dimension that was never reported', () => {
  const { events, lines } = feedWith({ tool_calls: 5, cost_usd: 0.01 });
  lines(...['a', 'b', 'c', 'd'].map((id) => toolUse(id, 'Read', { file_path: id })));
  // At the warn fraction (0.8): a warning, not an alert.
  expect(events.filter((e) => e.type === 'budget.warn').map((e) => e.data)).toEqual([{ dimension: 'tool_calls', used: 4, limit: 5, exceeded: false }]);
  expect(alerts(events)).toEqual([]);
  lines(toolUse('e', 'Read', { file_path: 'e' }), toolUse('f', 'Read', { file_path: 'f' }));
  expect(alerts(events)).toEqual(['budget: tool_calls reached its limit (5 of 5)']);
});

it('says a loopdeck run log is one to attach to, not a transcript', () => {
  const { events, lines } = feedWith();
  const line = JSON.stringify({ seq: 0, at: 1, session: 's', type: 'agent.notice', data: { text: 'x' } });
  lines(line, line);
  const notices = events.filter((e) => e.type === 'agent.notice').map((e) => (e.data as { text: string }).text);
  expect(notices).toEqual(['this is a loopdeck run log, not an agent transcript: follow it with loopdeck attach <run dir>']);
});
