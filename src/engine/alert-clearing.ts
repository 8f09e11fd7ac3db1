/**
 * When an alert's condition has cleared (docs/design.md, "Alerts and when they clear"),
 * decided from the events that follow the alert, as the fold reads them. Pure: each
 * function takes the alerts watched so far and one event's facts and returns the watches
 * left and the alerts that cleared. An alert that cleared stays cleared: only a new
 * detection event (a new alert) raises the condition again.
 *
 * - stagnation: a later checkpoint observed progress (the counter went back to 0);
 * - unknown (`checkpoint.unknown`): a later checkpoint measured a tracked signal;
 * - constraint (violated or not checkable): a later interval checkpoint checked the
 *   constraints and had no finding for it (it was found kept);
 * - repetition, by the guard's own rule (`repetition.ts`) with the settings the detection
 *   was made with: a repeat has cleared once the repeated call is in the last `window − 1`
 *   calls fewer than `threshold − 1` times (one more such call would not be detected); a
 *   cycle has cleared once a call did not continue its block;
 * - every alert: the goal was met.
 */
import { canonicalHash, type RepetitionRuleSettings } from './repetition.js';
import type { CheckpointRecord, ToolCall } from './types.js';

/** What a repetition alert waits for: the repeated call to thin out in the window, or the cycle to break. */
type RepetitionWatch =
  /** `recent`: for each of the last `window − 1` calls (oldest first), whether it is the repeated call. */
  | { mode: 'repeat'; name: string; target: string; recent: boolean[]; window: number; threshold: number }
  /** `last`: hashes of the last `period` calls (oldest first): the next call continues the cycle when it repeats the first. */
  | { mode: 'cycle'; period: number; last: string[] };

/**
 * An alert condition the fold watches until it clears, with the indices (in
 * `SessionState.alerts`) of the alerts it clears: a new alert of the same subject joins
 * the watch of an older one not cleared yet (the newer detection restarts its state).
 */
export type AlertWatch =
  | { kind: 'stagnation'; alerts: number[] }
  | { kind: 'unknown'; alerts: number[] }
  | { kind: 'constraint'; alerts: number[]; index: number; text: string }
  | { kind: 'repetition'; alerts: number[]; subject: string; exempt: string[]; ignore: string[]; rule: RepetitionWatch };

/** Alerts (indices) that cleared, and why, in words for the banner: `✓ cleared (<why>)`. */
export interface Clearing {
  alerts: number[];
  why: string;
}

/** The watches after an event, and what it cleared. */
export interface Cleared {
  watches: readonly AlertWatch[];
  cleared: Clearing[];
}

/** What a new alert is watched for; `null` when nothing in the log can clear it (only a met goal). */
export type NewWatch = WatchSubject | null;

/** A watch without its alerts: the condition alone (each kind of {@link AlertWatch}). */
export type WatchSubject = AlertWatch extends infer W ? (W extends AlertWatch ? Omit<W, 'alerts'> : never) : never;

/** Whether two watches are about the same condition (a newer alert of it joins the older watch). */
function sameSubject(a: WatchSubject, b: WatchSubject): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'constraint' && b.kind === 'constraint') return a.index === b.index && a.text === b.text;
  if (a.kind === 'repetition' && b.kind === 'repetition') return a.subject === b.subject;
  return true;
}

/** The watches with alert `index` watched for `watch` (joined with a watch of the same subject). */
export function watchAlert(watches: readonly AlertWatch[], watch: NewWatch, index: number): readonly AlertWatch[] {
  if (watch === null) return watches;
  const same = watches.find((w) => sameSubject(w, watch));
  const joined = { ...watch, alerts: [...(same?.alerts ?? []), index] } as AlertWatch;
  return [...watches.filter((w) => w !== same), joined];
}

/** Splits `watches` by `clears` (a reason, or `null` to keep watching, with the watch's next state). */
function settle(watches: readonly AlertWatch[], clears: (w: AlertWatch) => { why: string } | { next: AlertWatch }): Cleared {
  const kept: AlertWatch[] = [];
  const cleared: Clearing[] = [];
  for (const w of watches) {
    const outcome = clears(w);
    if ('why' in outcome) cleared.push({ alerts: w.alerts, why: outcome.why });
    else kept.push(outcome.next);
  }
  return { watches: kept, cleared };
}

/**
 * A checkpoint was recorded: stagnation clears on observed progress, unknown on any
 * measurement, a constraint when this interval checkpoint has no finding for it
 * (`findings`: the constraint findings recorded for this checkpoint's iteration).
 */
export function clearAtCheckpoint(
  watches: readonly AlertWatch[],
  checkpoint: CheckpointRecord,
  findings: ReadonlyArray<{ iteration: number; index: number; text: string }>,
): Cleared {
  const at = `checkpoint #${checkpoint.index + 1} (turn ${checkpoint.iteration})`;
  return settle(watches, (w) => {
    if (w.kind === 'stagnation' && checkpoint.status === 'PROGRESS_OBSERVED') return { why: `progress observed at ${at}` };
    if (w.kind === 'unknown' && checkpoint.status !== 'UNKNOWN') return { why: `${at} measured again` };
    if (w.kind === 'constraint' && !checkpoint.baseline && !findings.some((f) => f.iteration === checkpoint.iteration && f.index === w.index && f.text === w.text)) {
      return { why: `${at} found it kept` };
    }
    return { next: w };
  });
}

/** A tool call was recorded (`tool.call`): the repetition watches take it into their window. */
export function clearAtCall(watches: readonly AlertWatch[], call: ToolCall): Cleared {
  return settle(watches, (w) => {
    if (w.kind !== 'repetition' || w.exempt.includes(call.name)) return { next: w };
    const hash = canonicalHash(call.name, call.args, w.ignore);
    const rule = w.rule;
    if (rule.mode === 'cycle') {
      if (hash !== rule.last[0]) return { why: `the cycle of ${rule.period} calls was broken by a ${call.name} call` };
      return { next: { ...w, rule: { ...rule, last: [...rule.last.slice(1), hash] } } };
    }
    const recent = [...rule.recent, hash === rule.target].slice(-(rule.window - 1));
    const count = recent.filter(Boolean).length;
    if (count < rule.threshold - 1) {
      return { why: `${rule.name} call ${count}× in the last ${recent.length} calls: one more stays under ${rule.threshold} in ${rule.window}` };
    }
    return { next: { ...w, rule: { ...rule, recent } } };
  });
}

/** The run ended with its goal met: every alert still watched has cleared. */
export function clearAll(watches: readonly AlertWatch[], why: string): Cleared {
  return { watches: [], cleared: watches.map((w) => ({ alerts: w.alerts, why })) };
}

/**
 * What a repetition detection is watched for. `recorded`: the calls recorded before the
 * detection, oldest first (at least the last `max(window − 1, period)` that are not
 * exempt). `null` when the detection's event carries no settings (logs written before
 * they were recorded) or no calls: nothing but a met goal clears it then.
 */
export function repetitionWatch(
  data: { hash: string; count: number; calls: ToolCall[]; kind?: 'repeat' | 'cycle'; span?: number; settings?: RepetitionRuleSettings },
  recorded: readonly ToolCall[],
): NewWatch {
  const { settings } = data;
  const detected = data.calls[data.calls.length - 1];
  if (!settings || !detected) return null;
  const exempt = settings.exempt_tools ?? [];
  const ignore = settings.ignore_arg_keys ?? [];
  const hashes = recorded.filter((c) => !exempt.includes(c.name)).map((c) => canonicalHash(c.name, c.args, ignore));
  const base = { kind: 'repetition' as const, subject: data.hash, exempt, ignore };
  if (data.kind === 'cycle') {
    const period = data.span && data.count ? data.span / data.count : data.calls.length / settings.threshold;
    if (!Number.isInteger(period) || period < 2) return null;
    return { ...base, rule: { mode: 'cycle', period, last: hashes.slice(-period) } };
  }
  const target = canonicalHash(detected.name, detected.args, ignore);
  const recent = hashes.slice(-(settings.window - 1)).map((h) => h === target);
  return { ...base, rule: { mode: 'repeat', name: detected.name, target, recent, window: settings.window, threshold: settings.threshold } };
}
