// The numbers a budget rests on cannot be walked around by a damaged or edited log line. A
// token count, a cost or a limit read back by replay and resume that is missing, text, a
// negative number, infinite or of another kind is refused (the run is shown up to before
// it, and resume refuses the log): a missing number is not zero, a limit that is not there
// is not "no limit", and an outcome or an answer that is none of the known ones is not `ok`.
// So are the fields the fold keeps and reads again later (the goal's lists, a tool call's
// id): damage there is named on its own line, not on a sound line after it.
// Checked for every such field of every event type that carries one, in every corpus log
// that has the event (events no corpus run has are put into the demo run).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoopEvent } from '../../src/engine/events.js';
import { fold, stateAsJson, type SessionState } from '../../src/engine/fold.js';
import { foldLog, parseLog } from '../../src/engine/log.js';
import { BUDGET_DIMENSIONS } from '../../src/engine/types.js';

const DIR = path.resolve(import.meta.dirname, '../fixtures/logs');
const LOGS = readdirSync(DIR).filter((f) => f.endsWith('.jsonl')).sort();
const read = (name: string) => readFileSync(path.join(DIR, name), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as LoopEvent);

/** Raw JSON a damaged field may hold (`undefined`: the field deleted); `1e400` parses to Infinity. */
const DAMAGE = [undefined, 'null', '"5"', '-1', '1e400', '{}', '[]', 'true', '"ok"'] as const;

/** The budget's fields: where in which event type, and whether `null` and a missing field are fine there (a count not reported, no limit). */
interface Field {
  type: string;
  keys: readonly (string | number)[];
  /** Values of `DAMAGE` that are not damage there. */
  fine?: readonly (string | undefined)[];
}

const FIELDS: Field[] = [
  { type: 'model.call', keys: ['usage', 'input_tokens'] },
  { type: 'model.call', keys: ['usage', 'output_tokens'] },
  { type: 'model.call', keys: ['cost_usd'] },
  ...BUDGET_DIMENSIONS.map((d): Field => ({ type: 'session.start', keys: ['budget', d], fine: ['null'] })),
  { type: 'budget.extended', keys: ['limit'] },
  { type: 'budget.extended', keys: ['dimension'] },
  { type: 'agent.usage', keys: ['input_tokens'], fine: [undefined, 'null'] },
  { type: 'agent.usage', keys: ['output_tokens'], fine: [undefined, 'null'] },
  { type: 'agent.usage', keys: ['cost_usd'], fine: [undefined, 'null'] },
  { type: 'progress.assessed', keys: ['usage', 'input_tokens'] },
  { type: 'progress.assessed', keys: ['usage', 'output_tokens'] },
  { type: 'progress.assessed', keys: ['cost_usd'] },
  // A limit a reload changed: `null` is the limit removed (loopdeck writes it; it never leaves `to` out).
  { type: 'policy.reloaded', keys: ['diff', 0, 'to'], fine: ['null'] },
  { type: 'policy.reloaded', keys: ['diff', 0, 'effect'] },
  { type: 'policy.reloaded', keys: ['diff', 0] },
  { type: 'policy.reloaded', keys: ['diff'], fine: ['[]'] },
  // A path is any text (one the policy lacks is refused by resume when it applies it).
  { type: 'policy.reloaded', keys: ['diff', 0, 'path'], fine: ['"5"', '"ok"'] },
  { type: 'step.end', keys: ['outcome'] },
  { type: 'lap.end', keys: ['outcome'] },
  { type: 'tool.decision', keys: ['decision'] },
  { type: 'session.complete', keys: ['reason'] },
  { type: 'session.complete', keys: ['summary'], fine: ['"5"', '"ok"'] },
  { type: 'state.transition', keys: ['to'] },
  // What the fold keeps and reads again later (a checkpoint reads the goal's criteria and notes, a tool call's record is found by its id).
  ...(['success_criteria', 'constraints', 'notes'] as const).flatMap((k): Field[] => [
    { type: 'session.start', keys: ['goal', k], fine: ['[]'] },
    { type: 'session.start', keys: ['goal', k, 0], fine: ['"5"', '"ok"'] },
    { type: 'goal.revised', keys: ['goal', k], fine: ['[]'] },
  ]),
  { type: 'session.start', keys: ['goal', 'objective'], fine: ['"5"', '"ok"'] },
  { type: 'tool.call', keys: ['call', 'id'], fine: ['"5"', '"ok"'] },
  { type: 'tool.call', keys: ['call', 'name'], fine: ['"5"', '"ok"'] },
  { type: 'tool.call', keys: ['call'] },
  { type: 'model.call', keys: ['response', 'tool_calls', 0] },
  { type: 'budget.extended', keys: ['by'] },
  { type: 'model.call', keys: ['turn'] },
  { type: 'step.start', keys: ['step'] },
  { type: 'lap.start', keys: ['lap'] },
  { type: 'lap.start', keys: ['max_laps'] },
  { type: 'lap.end', keys: ['lap'] },
  { type: 'acceptance.checked', keys: ['rows'], fine: ['[]'] },
  { type: 'acceptance.checked', keys: ['rows', 0] },
  { type: 'acceptance.checked', keys: ['rows', 0, 'text'], fine: ['"5"', '"ok"'] },
  { type: 'acceptance.checked', keys: ['rows', 0, 'status'] },
  { type: 'agent.usage', keys: ['unreported'], fine: [undefined, '[]'] },
  { type: 'agent.usage', keys: ['unreported', 0] },
  { type: 'progress.assessed', keys: ['unreported'], fine: [undefined, '[]'] },
];

/** Events of the types no corpus run records, as loopdeck writes them, to put into the demo run. */
const MADE: Record<string, Record<string, unknown>> = {
  'agent.usage': { turn: 1, input_tokens: 120, output_tokens: 30, cost_usd: 0.002, unreported: ['cost_usd'] },
  'progress.assessed': { iteration: 1, criteria: ['every test passes'], harness: [], outcome: 'unparsed', usage: { input_tokens: 50, output_tokens: 10 }, cost_usd: 0.001 },
  'acceptance.checked': { iteration: 1, trigger: 'checkpoint', rows: [{ index: 0, text: 'every test passes', status: 'IN_PROGRESS' }] },
  'policy.reloaded': { file: '/p/loop.yaml', trigger: 'command', diff: [{ path: 'budget.limits.tokens', from: 100000, to: 200000, effect: 'applied' }] },
};

/** The runs that hold an event of `type`: every corpus log that has one, else the demo run with one put in after its third event. */
function runsWith(type: string): Array<{ name: string; events: LoopEvent[] }> {
  const found = LOGS.map((name) => ({ name, events: read(name) })).filter((r) => r.events.some((e) => e.type === type));
  if (found.length > 0) return found;
  const demo = read('demo.jsonl');
  const made = { ...demo[0]!, type, data: MADE[type] } as unknown as LoopEvent;
  return [{ name: `demo.jsonl with a ${type}`, events: [...demo.slice(0, 3), made, ...demo.slice(3)].map((e, seq) => ({ ...e, seq })) }];
}

/** The log's text with the field at `keys` of event `at` deleted (`undefined`) or set to the raw JSON `raw`. */
function damaged(events: readonly LoopEvent[], at: number, keys: readonly (string | number)[], raw: string | undefined): string {
  const MARK = '@@damaged field@@';
  const lines = events.map((e, i) => {
    if (i !== at) return JSON.stringify(e);
    const copy = structuredClone(e) as unknown as Record<string, unknown>;
    let holder = copy.data as Record<string | number, unknown>;
    for (const key of keys.slice(0, -1)) holder = holder[key] as Record<string | number, unknown>;
    const last = keys.at(-1)!;
    if (raw === undefined) delete holder[last];
    else holder[last] = MARK;
    return JSON.stringify(copy).replace(JSON.stringify(MARK), raw ?? '');
  });
  return `${lines.join('\n')}\n`;
}

/** The usage and limits of a state are numbers a budget can compare: counts, and a limit a count or `null`. */
function budgetIsSound(state: SessionState): void {
  for (const d of BUDGET_DIMENSIONS) {
    const used = state.usage[d];
    expect(typeof used === 'number' && Number.isFinite(used) && used >= 0, `usage.${d} = ${String(used)}`).toBe(true);
    const limit = state.limits[d];
    expect(limit === null || (typeof limit === 'number' && Number.isFinite(limit) && limit >= 0), `limits.${d} = ${String(limit)}`).toBe(true);
  }
}

describe('the numbers and names a budget, a decision or a later event rests on, damaged in a log', () => {
  it.each(FIELDS.map((f) => [`${f.type} data.${f.keys.join('.')}`, f] as const))('%s: refused and named, never taken as another value', (_name, field) => {
    let cases = 0;
    for (const run of runsWith(field.type)) {
      const at = run.events.findIndex((e) => e.type === field.type);
      for (const raw of DAMAGE) {
        // A value of the right kind that is still one the field may hold is not damage: an outcome that is `"ok"` is one.
        if (raw === '"ok"' && field.keys.at(-1) === 'outcome' && field.type === 'step.end') continue;
        // An item of a list is not deleted (that leaves the list shorter, or a hole written as `null`).
        if (raw === undefined && typeof field.keys.at(-1) === 'number') continue;
        const text = damaged(run.events, at, field.keys, raw);
        const folded = foldLog(text, 'events.jsonl');
        const parsed = parseLog(text, 'events.jsonl');
        budgetIsSound(folded.state);
        budgetIsSound(fold(parsed.events.slice(0, folded.state.eventCount)));
        const label = `${run.name}: seq ${at} data.${field.keys.join('.')} = ${raw ?? '(deleted)'}`;
        if (field.fine?.includes(raw)) {
          // Taken: nothing names it (a later event may not follow from it, as a raise of a limit `null` made none).
          expect(folded.state.eventCount, label).toBeGreaterThan(at);
          expect(folded.warnings.join('\n'), label).not.toContain(`at seq ${at} (`);
          continue;
        }
        cases += 1;
        const path = `data.${field.keys.map((k) => (typeof k === 'number' ? `[${k}]` : k)).join('.').replaceAll('.[', '[')}`;
        expect(folded.state.eventCount, label).toBe(at);
        // Refused, it changed nothing: the state is the fold of the events before it.
        expect(stateAsJson(folded.state), label).toEqual(stateAsJson(fold(run.events.slice(0, at))));
        // The field, or a field inside it (an object given for a change names its missing `path`).
        expect(folded.warnings.at(-1), label).toMatch(new RegExp(`^events\\.jsonl: stopped showing the run at seq ${at} \\(${field.type.replace('.', '\\.')}\\): .*\\(${path.replace(/[.[\]]/g, '\\$&')}(?:[.[][^ ]*)? is `));
        expect(folded.unresumable, label).toContain(at === 0 ? `seq 0 (${field.type}) cannot start the run` : `seq ${at} (${field.type}) does not follow from the events before it`);
        expect(parsed.warnings, label).toEqual(folded.warnings);
      }
    }
    expect(cases).toBeGreaterThan(0);
  });
});

describe('a run starts once and ends once', () => {
  const demo = read('demo.jsonl');
  const withCopy = (of: number, at: number) => {
    const events = [...demo.slice(0, at), demo[of]!, ...demo.slice(at)].map((e, seq) => ({ ...e, seq }));
    return `${events.map((e) => JSON.stringify(e)).join('\n')}\n`;
  };

  it('a second session.start (its limits, goal and clock would replace the run\'s) is refused', () => {
    const folded = foldLog(withCopy(0, 6), 'events.jsonl');
    expect(folded.state.eventCount).toBe(6);
    expect(folded.warnings).toEqual([`events.jsonl: stopped showing the run at seq 6 (session.start): it does not follow from the events before it (a damaged line, legible but wrong) (a second session.start: the run ${demo[0]!.session} started before it)`]);
    expect(folded.unresumable).toContain('seq 6 (session.start) does not follow from the events before it');
  });

  it('a second session.complete (it would replace the first end) is refused', () => {
    const last = demo.length - 1;
    const folded = foldLog(withCopy(last, demo.length), 'events.jsonl');
    expect(folded.state.eventCount).toBe(demo.length);
    expect(folded.state.done?.reason).toBe('goal_met');
    expect(folded.warnings).toEqual([`events.jsonl: stopped showing the run at seq ${demo.length} (session.complete): it does not follow from the events before it (a damaged line, legible but wrong) (a second session.complete: the run ended before it (goal_met))`]);
  });
});
