/**
 * A transcript another program is writing, turned into loopdeck events as its lines arrive
 * (docs/design.md, "Watching a session"): the format is detected as `loopdeck import`
 * detects it, entries become events as the command agent records them
 * ({@link TranscriptRecorder}), and the detectors a run of loopdeck's own would apply run
 * on them: the repetition guard on each tool call (before its result, as in a run), the
 * budget of a loop.yaml on the usage (warned once per dimension at its warn fraction and at
 * its limit). Nothing here can stop the watched program: detections are events the console
 * rings the bell for.
 *
 * Tokens and cost the transcript does not report are unknown, never 0: once the agent has
 * done something and a dimension has never been reported, an `agent.usage` marks it
 * unreported (the budget panel then shows "unknown", or "≥" a lower bound).
 */
import { newWarnings, exceededDimension } from '../engine/budget.js';
import { parserFor, type TranscriptEntry, type TranscriptParser } from '../engine/agents/transcripts/index.js';
import { TranscriptRecorder } from '../engine/agents/transcripts/record.js';
import { SCHEMA_VERSION } from '../engine/events.js';
import { isEnvelope } from '../engine/log.js';
import { newGoal } from '../engine/goal.js';
import { detectionEventData, INITIAL_REPETITION, observeCall, recordResult, resultHash, type RepetitionOptions, type RepetitionState } from '../engine/repetition.js';
import type { BudgetDimension, BudgetLimits, BudgetUsage } from '../engine/types.js';
import type { EventSink } from './events.js';
import type { TailItem } from './tail.js';

/** The settings a watch applies: a loop.yaml's, or loopdeck's defaults. */
export interface WatchSettings {
  /** Budget limits; `wall_clock_seconds` is not checked (a transcript's clock is not loopdeck's). */
  limits: BudgetLimits;
  /** `budget.warn_fraction`. */
  warn_fraction: number;
  repetition: RepetitionOptions;
  /** `checkpoint.every_iterations`, recorded in `session.start`. */
  checkpoint_every: number;
  stagnation_threshold: number;
}

/** Lines read without recognising a format, after which the watch says so (once). */
export const UNRECOGNISED_LINES = 50;

/** Longest excerpt of a line quoted in a notice. */
const EXCERPT = 120;

/** The turn every event of a watched session belongs to: the whole session is one run of the agent. */
const TURN = 1;

/** Follows one transcript: feed it what the tail reads; events go to the sink. */
export class TranscriptFeed {
  private readonly parser: TranscriptParser = parserFor('auto');
  private readonly recorder: TranscriptRecorder;
  private repetition: RepetitionState = INITIAL_REPETITION;
  private readonly usage: BudgetUsage = { turns: 0, tool_calls: 0, wall_clock_seconds: 0, tokens: 0, cost_usd: 0 };
  private readonly reported = { tokens: false, cost_usd: false };
  private readonly markedUnknown = new Set<'tokens' | 'cost_usd'>();
  private readonly warned: BudgetDimension[] = [];
  private readonly exceeded = new Set<BudgetDimension>();
  private lines = 0;
  private saidUnrecognised = false;
  /** Called after each line that started a new assistant turn, with the turn count. */
  onTurn: ((turns: number) => void) | null = null;

  constructor(
    private readonly sink: EventSink,
    private readonly settings: WatchSettings,
    now: () => number,
  ) {
    this.recorder = new TranscriptRecorder(TURN, now);
  }

  /** The format detected so far (`text` until a line tells). */
  get format(): string {
    return this.parser.format;
  }

  /** Assistant turns seen. */
  get turns(): number {
    return this.usage.turns;
  }

  /** The agent's latest message text (what it reports), empty until it says something. */
  get lastText(): string {
    return this.recorder.lastText;
  }

  /** The opening events: the session, running, one step standing for the whole watched session. */
  begin(file: string, workspace: string | null): void {
    this.sink.emit('session.start', {
      schemaVersion: SCHEMA_VERSION,
      goal: newGoal(`watching ${file}`),
      pattern: 'react',
      pattern_reason: 'a session run by another program, watched',
      budget: { ...this.settings.limits, wall_clock_seconds: null },
      workspace: workspace ?? '(not given)',
      checkpoint_every: this.settings.checkpoint_every,
      stagnation_threshold: this.settings.stagnation_threshold,
    });
    this.sink.emit('state.transition', { from: 'IDLE', to: 'PLANNING' });
    this.sink.emit('state.transition', { from: 'PLANNING', to: 'EXECUTING' });
    this.sink.emit('step.start', { step: 1, turn: TURN, title: `the session in ${file}` });
  }

  /** Takes what one poll of the tail read. */
  take(items: readonly TailItem[]): void {
    for (const item of items) {
      if (item.kind === 'notice') this.sink.emit('agent.notice', { text: item.text });
      else this.line(item.text);
    }
  }

  private line(text: string): void {
    this.lines += 1;
    const before = this.parser.format;
    const entries = this.parser.line(text);
    if (this.parser.format === 'text') this.unrecognised(text);
    else if (before === 'text') this.sink.emit('agent.notice', { text: `reading the transcript as ${this.parser.format}` });
    const turns = this.usage.turns;
    const result = this.recorder.result;
    for (const entry of entries) this.entry(entry);
    const ended = this.recorder.result;
    if (ended && ended !== result) this.sink.emit('agent.notice', { text: `the agent's run ended: ${ended.ok ? 'it reported success' : 'it reported an error'}; still following the file` });
    this.markUnknown();
    this.checkBudget();
    if (this.usage.turns !== turns) this.onTurn?.(this.usage.turns);
  }

  /** Before a format is recognised: a line that is not JSON gets a notice; many lines without a format, one. */
  private unrecognised(text: string): void {
    const trimmed = text.trim();
    if (trimmed === '') return;
    let json = true;
    let value: unknown;
    try {
      value = JSON.parse(trimmed);
    } catch {
      json = false;
    }
    if (json && isEnvelope(value) && !this.saidUnrecognised) {
      this.saidUnrecognised = true;
      this.sink.emit('agent.notice', { text: 'this is a loopdeck run log, not an agent transcript: follow it with loopdeck attach <run dir>' });
    } else if (!json) {
      const shown = trimmed.length > EXCERPT ? `${trimmed.slice(0, EXCERPT)}…` : trimmed;
      this.sink.emit('agent.notice', { text: `line ${this.lines} is not JSON, left out: ${shown}` });
    } else if (this.lines >= UNRECOGNISED_LINES && !this.saidUnrecognised) {
      this.saidUnrecognised = true;
      this.sink.emit('agent.notice', { text: `${this.lines} lines read and none is a record of a transcript loopdeck reads (Claude Code, Codex, Gemini CLI); still reading` });
    }
  }

  private entry(entry: TranscriptEntry): void {
    if (entry.kind === 'message' && entry.starts_turn) this.usage.turns += 1;
    if (entry.kind === 'usage') this.addUsage(entry.usage);
    for (const draft of this.recorder.record(entry)) {
      if (draft.type === 'tool.call') {
        // The guard judges a call as it is made, on the results of the calls before it.
        const { state, detection } = observeCall(this.repetition, { call: draft.data.call }, this.settings.repetition);
        this.repetition = state;
        this.usage.tool_calls += 1;
        this.sink.emit('tool.call', draft.data);
        if (detection) this.sink.emit('repetition.detected', detectionEventData(detection, this.settings.repetition));
        continue;
      }
      if (draft.type === 'tool.result') this.repetition = recordResult(this.repetition, draft.data.result.call_id, resultHash(draft.data.result));
      this.sink.emit(draft.type, draft.data as never);
    }
  }

  private addUsage(usage: Extract<TranscriptEntry, { kind: 'usage' }>['usage']): void {
    if (usage.input_tokens !== null || usage.output_tokens !== null) this.reported.tokens = true;
    if (usage.cost_usd !== null) this.reported.cost_usd = true;
    this.usage.tokens += (usage.input_tokens ?? 0) + (usage.output_tokens ?? 0);
    this.usage.cost_usd += usage.cost_usd ?? 0;
  }

  /** Once the agent has done something, a dimension never reported so far is unknown. */
  private markUnknown(): void {
    if (this.usage.turns === 0 && this.usage.tool_calls === 0) return;
    const unknown = (['tokens', 'cost_usd'] as const).filter((d) => !this.reported[d] && !this.markedUnknown.has(d));
    if (unknown.length === 0) return;
    for (const d of unknown) this.markedUnknown.add(d);
    // Nothing is added: a reported dimension gets 0, one never reported stays unknown.
    const tokens = this.reported.tokens ? 0 : null;
    this.sink.emit('agent.usage', { turn: TURN, input_tokens: tokens, output_tokens: tokens, cost_usd: this.reported.cost_usd ? 0 : null, unreported: unknown });
  }

  /**
   * `budget.warn` once per dimension at its warn fraction, and once more (`exceeded`) at its
   * limit. A dimension never reported is not judged (its 0 is not a measurement).
   */
  private checkBudget(): void {
    const limits: BudgetLimits = {
      ...this.settings.limits,
      wall_clock_seconds: null,
      tokens: this.reported.tokens ? this.settings.limits.tokens : null,
      cost_usd: this.reported.cost_usd ? this.settings.limits.cost_usd : null,
    };
    for (;;) {
      const over = exceededDimension(this.usage, { ...limits, ...Object.fromEntries([...this.exceeded].map((d) => [d, null])) });
      if (!over) break;
      this.exceeded.add(over);
      if (!this.warned.includes(over)) this.warned.push(over);
      this.sink.emit('budget.warn', { dimension: over, used: this.usage[over], limit: limits[over]!, exceeded: true });
    }
    for (const dimension of newWarnings(this.usage, limits, this.settings.warn_fraction, this.warned)) {
      this.warned.push(dimension);
      this.sink.emit('budget.warn', { dimension, used: this.usage[dimension], limit: limits[dimension]!, exceeded: false });
    }
  }
}
