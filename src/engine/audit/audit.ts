/**
 * `loopdeck audit`: a finished CLI agent session replayed through loopdeck's detectors —
 * the budget, the repetition guard and stagnation — to show where each would have stopped
 * it and what the session spent after that point (docs/design.md, "Auditing sessions").
 *
 * Pure: entries in, a report out. Stagnation is judged on test results found in the
 * agent's own tool outputs ({@link testSummary}), each test run standing for a checkpoint;
 * such results are the agent's, not loopdeck's measurements, and the report says so.
 */
import { exceededDimension } from '../budget.js';
import { evaluateCheckpoint, INITIAL_EVALUATOR, type EvaluatorState, type ProgressPolicy } from '../checkpoint.js';
import { INITIAL_REPETITION, observeCall, recordResult, resultHash, type RepetitionOptions, type RepetitionState } from '../repetition.js';
import type { BudgetLimits } from '../types.js';
import type { TranscriptEntry } from '../agents/transcripts/types.js';
import { testSummary } from './test-summary.js';

/** The settings an audit applies: a loop.yaml's, or loopdeck's defaults. */
export interface AuditOptions {
  /** Budget limits; `wall_clock_seconds` is not checked (transcripts carry no reliable clock). */
  limits: BudgetLimits;
  repetition: RepetitionOptions;
  /** Test runs in a row without fewer failing or more passing tests that raise stagnation. */
  stagnation_threshold: number;
}

/** What a session had spent at a point: counts, tokens and USD; `null` when never reported. */
export interface Spend {
  turns: number;
  tool_calls: number;
  tokens: number | null;
  cost_usd: number | null;
  /**
   * True when `cost_usd` is apportioned: the agent reported its cost only as a total after
   * this point (Claude Code's result record), so the share after it is the total times the
   * share of tokens (or, without tokens, of turns) spent after it.
   */
  cost_estimated?: boolean;
}

/** Where in the session something happened: after `turns` turns and `tool_calls` calls. */
export interface AuditPoint {
  turn: number;
  tool_call: number;
}

/** One detector that would have fired. */
export interface Firing {
  detector: 'budget' | 'repetition' | 'stagnation';
  at: AuditPoint;
  /** What fired, for a person: the limit, the repeated call, the test counts. */
  detail: string;
  /** What the session spent after this point (what loopdeck would have saved). */
  after: Spend;
}

/** The audit of one session. */
export interface AuditReport {
  total: Spend;
  /** Each detector's first firing, in the order they fire. */
  firings: Firing[];
  /** Test runs found in the agent's own tool outputs. */
  test_runs: number;
  verdict: string;
}

interface Totals {
  turns: number;
  tool_calls: number;
  tokens: number;
  cost_usd: number;
  tokensKnown: boolean;
  costKnown: boolean;
}

const TEST_SIGNALS: ProgressPolicy['observed'] = [
  { signal: 'observed.tests.failing', direction: 'decrease' },
  { signal: 'observed.tests.passing', direction: 'increase' },
];

function snapshot(t: Totals): Totals {
  return { ...t };
}

function spendBetween(from: Totals, to: Totals): Spend {
  const spend: Spend = {
    turns: to.turns - from.turns,
    tool_calls: to.tool_calls - from.tool_calls,
    tokens: to.tokensKnown ? to.tokens - from.tokens : null,
    cost_usd: to.costKnown ? round(to.cost_usd - from.cost_usd) : null,
  };
  const reportedLate = to.costKnown && !from.costKnown && (from.turns > 0 || from.tool_calls > 0);
  if (!reportedLate) return spend;
  const share = to.tokensKnown && to.tokens > 0 ? (to.tokens - from.tokens) / to.tokens : to.turns > 0 ? (to.turns - from.turns) / to.turns : 1;
  return { ...spend, cost_usd: round(to.cost_usd * share), cost_estimated: true };
}

function round(usd: number): number {
  return Number(usd.toFixed(6));
}

/** Walks the session once, keeping each detector's first firing and the totals there. */
class Walk {
  readonly totals: Totals = { turns: 0, tool_calls: 0, tokens: 0, cost_usd: 0, tokensKnown: false, costKnown: false };
  readonly fired = new Map<Firing['detector'], { at: AuditPoint; detail: string; totals: Totals }>();
  private repetition: RepetitionState = INITIAL_REPETITION;
  private evaluator: EvaluatorState = INITIAL_EVALUATOR;
  private readonly ids = new Map<string, string>();
  testRuns = 0;

  constructor(private readonly options: AuditOptions) {}

  private point(): AuditPoint {
    return { turn: this.totals.turns, tool_call: this.totals.tool_calls };
  }

  private fire(detector: Firing['detector'], detail: string, totals: Totals = snapshot(this.totals)): void {
    if (!this.fired.has(detector)) this.fired.set(detector, { at: { turn: totals.turns, tool_call: totals.tool_calls }, detail, totals });
  }

  entry(entry: TranscriptEntry): void {
    switch (entry.kind) {
      case 'message':
        if (entry.starts_turn) this.totals.turns += 1;
        break;
      case 'usage': {
        const { input_tokens: input, output_tokens: output, cost_usd: cost } = entry.usage;
        if (input !== null || output !== null) this.totals.tokensKnown = true;
        this.totals.tokens += (input ?? 0) + (output ?? 0);
        if (cost !== null) this.totals.costKnown = true;
        this.totals.cost_usd += cost ?? 0;
        break;
      }
      case 'tool_call':
        this.toolCall(entry);
        break;
      case 'tool_result':
        this.toolResult(entry);
        break;
      default:
        break;
    }
    this.checkBudget();
  }

  private toolCall(entry: Extract<TranscriptEntry, { kind: 'tool_call' }>): void {
    // The guard checks a call before it runs: the call itself is part of what it saves.
    const before = snapshot(this.totals);
    const id = `${this.totals.tool_calls + 1}:${entry.id}`;
    this.ids.set(entry.id, id);
    const { state, detection } = observeCall(this.repetition, { call: { id, name: entry.name, args: entry.args } }, this.options.repetition);
    this.repetition = state;
    this.totals.tool_calls += 1;
    if (detection) {
      const what = detection.kind === 'cycle' ? `a cycle of ${detection.period} calls` : `the same ${entry.name} call`;
      this.fire('repetition', `${what} ${detection.count}× in the last ${this.options.repetition.window} calls (at call ${this.totals.tool_calls}, ${entry.name})`, before);
    }
  }

  private toolResult(entry: Extract<TranscriptEntry, { kind: 'tool_result' }>): void {
    const id = this.ids.get(entry.id);
    if (id) this.repetition = recordResult(this.repetition, id, resultHash({ status: entry.status, exit_code: entry.exit_code, output: entry.output }));
    const tests = testSummary(entry.output);
    if (!tests) return;
    this.testRuns += 1;
    const { record, state } = evaluateCheckpoint(
      this.evaluator,
      { iteration: this.totals.turns, observed: { 'tests.failing': tests.failing, 'tests.passing': tests.passing }, reported: { new_evidence: [], eliminated_hypotheses: [], remaining_hypotheses: [] } },
      { observed: TEST_SIGNALS, reported: [], threshold: this.options.stagnation_threshold },
    );
    this.evaluator = state;
    if (record.stagnation_detected) {
      this.fire('stagnation', `${record.counter} test runs in a row without fewer failing or more passing tests (${tests.failing} failing; test results found in the agent's own tool output)`);
    }
  }

  private checkBudget(): void {
    if (this.fired.has('budget')) return;
    const { limits } = this.options;
    const usage = { turns: this.totals.turns, tool_calls: this.totals.tool_calls, wall_clock_seconds: 0, tokens: this.totals.tokens, cost_usd: this.totals.cost_usd };
    const dimension = exceededDimension(usage, { ...limits, wall_clock_seconds: null });
    if (dimension) this.fire('budget', `${dimension} reached its limit of ${limits[dimension]}`);
  }
}

/** The verdict line of a report. */
function verdictOf(firings: readonly Firing[]): string {
  const first = firings[0];
  if (!first) return 'no detector would have fired: loopdeck would have let this session run to its end';
  return `${first.detector} would have stopped this session at turn ${first.at.turn}, tool call ${first.at.tool_call}, saving ${describeSpend(first.after)}`;
}

/** `3 turns, 5 tool calls, 1200 tokens and $0.0200` (unknown parts said so). */
export function describeSpend(spend: Spend): string {
  const tokens = spend.tokens === null ? 'tokens unknown' : `${spend.tokens} tokens`;
  const cost = spend.cost_usd === null ? 'cost unknown' : `${spend.cost_estimated ? 'about ' : ''}$${spend.cost_usd.toFixed(4)}`;
  return `${spend.turns} turns, ${spend.tool_calls} tool calls, ${tokens} and ${cost}`;
}

/** Audits one session's entries (see the module comment). */
export function auditEntries(entries: readonly TranscriptEntry[], options: AuditOptions): AuditReport {
  const walk = new Walk(options);
  for (const entry of entries) walk.entry(entry);
  const end = walk.totals;
  const firings = [...walk.fired.entries()]
    .map(([detector, f]) => ({ detector, at: f.at, detail: f.detail, after: spendBetween(f.totals, end) }))
    .sort((a, b) => a.at.tool_call - b.at.tool_call || a.at.turn - b.at.turn);
  const total = spendBetween({ turns: 0, tool_calls: 0, tokens: 0, cost_usd: 0, tokensKnown: true, costKnown: true }, end);
  return { total, firings, test_runs: walk.testRuns, verdict: verdictOf(firings) };
}
