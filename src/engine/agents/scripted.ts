import { z } from 'zod';
import { AgentError } from '../errors.js';
import type { AgentTurn, ToolCall } from '../types.js';
import { loadYamlWith, parseYamlWith } from '../yaml-file.js';
import type { Agent, AgentContext, AssessAnswer, PlanContext } from './agent.js';
import { counted } from '../../text/count.js';

const toolCallSchema = z.strictObject({
  id: z.string().min(1).describe("The call's id, unique in the transcript (the log, approvals and the repetition guard key on it)."),
  name: z.string().min(1).describe('A built-in tool (shell, read_file, write_file, edit, list_files, git_status, git_diff).'),
  args: z.record(z.string(), z.unknown()).default({}).describe("The tool's arguments (see Tools above)."),
});

const reportSchema = z.strictObject({
  new_evidence: z
    .array(z.strictObject({ claim: z.string().describe('What the agent says it found.'), evidence_ref: z.string().describe('What backs it: the name of a test (as the test runner reports it). Checked against the tests the observers reported: a test they ran is found (passing or failing); anything else shows as not found in what was observed.') }))
    .optional()
    .describe('Evidence the agent reports; the harness checks whether it can see each reference.'),
  eliminated_hypotheses: z.array(z.string()).optional().describe('Hypotheses the agent says it ruled out.'),
  remaining_hypotheses: z.array(z.string()).optional().describe('Hypotheses the agent says are still open.'),
});

const turnSchema = z
  .strictObject({
    thought: z.string().optional().describe('What the agent thinks this turn (shown in the timeline).'),
    tool_calls: z.array(toolCallSchema).default([]).describe('Tool calls of this turn, run in order (each through approval).'),
    report: reportSchema.optional().describe("The agent's claims, shown beside what the harness observed at checkpoints; never counted as progress."),
    usage: z
      .strictObject({ input_tokens: z.int().nonnegative().describe('Input tokens of the turn.'), output_tokens: z.int().nonnegative().describe('Output tokens of the turn.') })
      .default({ input_tokens: 0, output_tokens: 0 })
      .describe('Tokens the turn counts against `budget.max_tokens` and `max_cost_usd`.'),
    final: z.string().min(1).optional().describe('The agent claims the goal is met, with this summary; the verify commands decide. A turn is either final or calls tools.'),
  })
  .refine((turn) => !(turn.final !== undefined && turn.tool_calls.length > 0), {
    path: ['final'],
    message: 'expected either final or tool_calls in a turn, not both, found both (a turn is either final or calls tools)',
  });

const reconciliationSchema = z.unknown();

const usageSchema = z
  .strictObject({ input_tokens: z.int().nonnegative().describe('Input tokens of the request.'), output_tokens: z.int().nonnegative().describe('Output tokens of the request.') })
  .default({ input_tokens: 0, output_tokens: 0 });

const assessmentSchema = z.strictObject({
  answer: z
    .unknown()
    .describe('What the model answers: `{criteria: [{criterion, verdict, reason}]}` (criterion: 1-based number or exact text; verdict: met, partly or not), as a mapping or as JSON text; any other shape is recorded as unparsed.'),
  usage: usageSchema.describe('Tokens the request counts against `budget.max_tokens` and `max_cost_usd` (never an iteration).'),
});

/**
 * The transcript format of docs/design.md, "The scripted agent", with the answers the loop
 * patterns ask for besides turns: `replans` (Plan-and-Execute, in order), `reflections`
 * (Reflexion, in order) and `reconciliations` (goal revisions, in order).
 */
export const transcriptSchema = z.strictObject({
  plan: z.array(z.string().min(1)).optional().describe('Plan-and-Execute: the steps of the first plan.'),
  replans: z.array(z.array(z.string().min(1))).default([]).describe('Plan-and-Execute: the steps of each replan after a failed step, in order.'),
  reflections: z.array(z.string().min(1)).default([]).describe('Reflexion: the lesson of each failed attempt, in order.'),
  reconciliations: z.array(reconciliationSchema).default([]).describe('Answers to `/goal` revisions, in order (any shape: the engine validates and falls back).'),
  assessments: z
    .array(assessmentSchema)
    .default([])
    .describe('`progress.assess`: the answer to each checkpoint\'s assessment request, in order (across laps); running out is recorded as a failed assessment.'),
  turns: z.array(turnSchema).default([]).describe('One entry per model turn, consumed in order; running out is an error, never a silent stop.'),
  /** Fresh laps: the turns of each lap's new agent, in lap order. */
  laps: z.array(z.array(turnSchema)).optional().describe("Fresh laps: the turns of each lap's new agent, one list per lap."),
});

export type Transcript = z.output<typeof transcriptSchema>;

/** A problem of a transcript at its path in the file (`['turns', 1, 'tool_calls', 0, 'id']`). */
export interface TranscriptProblem {
  path: Array<string | number>;
  message: string;
}

/**
 * Tool call ids used more than once in a transcript (turns and every lap alike): the log,
 * approvals and the repetition guard key on the id, so it must be unique in the file. Reads
 * any value (a document the schema rejected too) and skips what is not of the call's shape.
 */
export function duplicateIdProblems(raw: unknown): TranscriptProblem[] {
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  const field = (value: unknown, key: string): unknown => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined);
  const turns: Array<{ turn: unknown; at: Array<string | number> }> = [
    ...list(field(raw, 'turns')).map((turn, t) => ({ turn, at: ['turns', t] })),
    ...list(field(raw, 'laps')).flatMap((lap, l) => list(lap).map((turn, t) => ({ turn, at: ['laps', l, t] }))),
  ];
  const first = new Map<string, string>();
  const problems: TranscriptProblem[] = [];
  for (const { turn, at } of turns) {
    list(field(turn, 'tool_calls')).forEach((call, c) => {
      const id = field(call, 'id');
      if (typeof id !== 'string' || id === '') return;
      const path = [...at, 'tool_calls', c, 'id'];
      const earlier = first.get(id);
      if (earlier === undefined) first.set(id, showPath(path.slice(0, -1)));
      else problems.push({ path, message: `expected an id unique in the transcript, found ${JSON.stringify(id)} again (first at ${earlier}); the log, approvals and the repetition guard key on it` });
    });
  }
  return problems;
}

/** `turns[0].tool_calls[1]`: a transcript path as errors write it. */
function showPath(path: ReadonlyArray<string | number>): string {
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i > 0 ? '.' : ''}${key}`)).join('');
}

/** The transcript schema with the checks across entries (tool call ids unique in the file). */
const checkedTranscriptSchema = transcriptSchema.superRefine((transcript, ctx) => {
  for (const problem of duplicateIdProblems(transcript)) ctx.addIssue({ code: 'custom', ...problem });
});

/** Checks of a transcript the schema rejected: run anyway, so one pass lists every error. */
const transcriptChecks = { whenInvalid: (raw: unknown) => duplicateIdProblems(raw) };

/**
 * Reads and validates a transcript file: its schema, and tool call ids unique in the file.
 * @throws ConfigErrors naming the file, the path in it and what was expected, every error at once
 */
export function loadTranscript(file: string): Transcript {
  return loadYamlWith(checkedTranscriptSchema, file, undefined, transcriptChecks);
}

/** What a run asks of a transcript at its start, from loop.yaml. */
export interface TranscriptUse {
  /** The pattern the run follows (`auto` resolved). */
  pattern: 'react' | 'plan-and-execute' | 'reflexion';
  /** `laps.enabled`: the turns of each lap come from `laps`, else from `turns`. */
  laps: boolean;
  /** `laps.max_laps`, for a warning when fewer laps are scripted. */
  maxLaps: number;
}

/**
 * Replays a transcript: one entry per model turn, consumed in order. Running out of
 * turns is an {@link AgentError}, never a silent stop.
 */
export class ScriptedAgent implements Agent {
  readonly name: string;
  private consumed = 0;
  private plans = 0;
  private reflections = 0;
  private reconciliations = 0;

  constructor(
    private readonly transcript: Transcript,
    name = 'scripted',
    /** Assessments answered so far, shared by the agents of every lap. */
    private readonly assessed: { count: number } = { count: 0 },
  ) {
    this.name = name;
  }

  /** @throws ConfigErrors when the file is unreadable or not a valid transcript (see {@link loadTranscript}) */
  static fromFile(file: string): ScriptedAgent {
    return new ScriptedAgent(loadTranscript(file), `scripted:${file}`);
  }

  /** @throws ConfigErrors when `source` is not a valid transcript */
  static fromYaml(source: string, file = '<transcript>'): ScriptedAgent {
    return new ScriptedAgent(parseYamlWith(checkedTranscriptSchema, source, file, transcriptChecks), `scripted:${file}`);
  }

  /**
   * What stops a run of this transcript at its start or first turn, decided from the
   * transcript and loop.yaml alone (`errors`), and what a run would not use or run out of
   * (`warnings`), each at its path in the transcript:
   * - Plan-and-Execute needs `plan:` (the first thing a run asks for); an empty plan ends
   *   the run `no_plan` before any turn, so nothing else is asked of it;
   * - without laps the run plays `turns:`, with laps each lap plays its list in `laps:`: the
   *   one played needs a first turn, the other is never read (a warning);
   * - with laps, fewer laps scripted than `laps.max_laps` (a warning: a lap past them fails).
   */
  startProblems(use: TranscriptUse): { errors: TranscriptProblem[]; warnings: TranscriptProblem[] } {
    const errors: TranscriptProblem[] = [];
    const warnings: TranscriptProblem[] = [];
    const { turns, laps, plan } = this.transcript;
    if (use.pattern === 'plan-and-execute' && !plan) {
      errors.push({ path: [], message: 'expected a plan: list (pattern: plan-and-execute asks the agent for its plan first), found none' });
    }
    // An empty plan ends the run no_plan before any turn: no turn is asked for.
    if (use.pattern === 'plan-and-execute' && plan?.length === 0) return { errors, warnings };
    if (!use.laps) {
      if (turns.length === 0) {
        const has = laps ? 'only laps: (read when laps.enabled is true)' : 'none';
        errors.push({ path: laps ? ['laps'] : [], message: `expected at least one entry in turns: (laps.enabled is false, so the run plays turns:), found ${has}` });
      } else if (laps) {
        warnings.push({ path: ['laps'], message: 'never read: laps.enabled is false in loop.yaml, so the run plays turns:' });
      }
      return { errors, warnings };
    }
    const first = laps?.[0];
    if (!first || first.length === 0) {
      const has = !laps ? (turns.length > 0 ? 'only turns: (read when laps.enabled is false)' : 'none') : laps.length === 0 ? 'an empty list' : 'no turn in the first lap';
      errors.push({ path: laps && laps.length > 0 ? ['laps', 0] : turns.length > 0 ? ['turns'] : [], message: `expected laps: with at least one turn in the first lap (laps.enabled is true, so each lap plays its list in laps:), found ${has}` });
    } else {
      if (turns.length > 0) warnings.push({ path: ['turns'], message: 'never read: laps.enabled is true in loop.yaml, so each lap plays its list in laps:' });
      if (laps!.length < use.maxLaps) {
        warnings.push({ path: ['laps'], message: `${laps!.length} lap${laps!.length === 1 ? ' is' : 's are'} scripted and laps.max_laps is ${use.maxLaps}: a lap past them fails at its first turn` });
      }
    }
    return { errors, warnings };
  }

  /**
   * The agent of lap `lap` (1-based) for fresh laps: a new agent whose turns are the
   * transcript's `laps[lap - 1]` (none left is an AgentError on its first turn).
   */
  forLap(lap: number): ScriptedAgent {
    const turns = this.transcript.laps?.[lap - 1] ?? [];
    return new ScriptedAgent({ ...this.transcript, turns, laps: undefined }, `${this.name} lap ${lap}`, this.assessed);
  }

  /**
   * Every tool call the transcript makes, with its path in the file (`['turns', 0,
   * 'tool_calls', 1]`, `['laps', 0, 2, 'tool_calls', 0]`), in file order: what `validate`
   * checks against the tools before a run meets them.
   */
  calls(): Array<{ path: Array<string | number>; call: ToolCall }> {
    const inTurns = (turns: Transcript['turns'], at: Array<string | number>) =>
      turns.flatMap((turn, t) => turn.tool_calls.map((call, c) => ({ path: [...at, t, 'tool_calls', c], call: call as ToolCall })));
    return [...inTurns(this.transcript.turns, ['turns']), ...(this.transcript.laps ?? []).flatMap((turns, lap) => inTurns(turns, ['laps', lap]))];
  }

  /** Turns not consumed yet. */
  get remaining(): number {
    return this.transcript.turns.length - this.consumed;
  }

  /** Skips the turns, plans and reflections already recorded in an earlier process (crash-resume). */
  restore(turns: readonly AgentTurn[], asked?: { plans: number; reflections: number }): void {
    this.consumed = Math.min(this.transcript.turns.length, turns.length);
    if (asked) {
      this.plans = asked.plans;
      this.reflections = asked.reflections;
    }
  }

  /** The transcript's `plan`, then each of `replans` in order; running out is an AgentError. */
  async plan(context: PlanContext): Promise<string[]> {
    const index = this.plans++;
    if (index === 0 && context.kind === 'initial') {
      if (!this.transcript.plan) throw new AgentError(`${this.name}: the transcript has no plan`);
      return [...this.transcript.plan];
    }
    const replan = this.transcript.replans[index - (this.transcript.plan ? 1 : 0)];
    if (!replan) throw new AgentError(`${this.name}: the transcript has ${this.transcript.replans.length} replans and one more was asked for`);
    return [...replan];
  }

  async reflect(): Promise<string> {
    const text = this.transcript.reflections[this.reflections++];
    if (text === undefined) throw new AgentError(`${this.name}: the transcript has ${this.transcript.reflections.length} reflections and one more was asked for`);
    return text;
  }

  /** The next scripted reconciliation, or `undefined` (the engine then uses its fallback). */
  async reconcile(): Promise<unknown> {
    return this.transcript.reconciliations[this.reconciliations++];
  }

  /** Skips the assessments a log already holds (crash-resume); shared by the agents of every lap. */
  restoreAssessments(answered: number): void {
    this.assessed.count = Math.min(this.transcript.assessments.length, Math.max(0, answered));
  }

  /** The next scripted assessment (`assessments`, in order); running out is an AgentError. */
  async assess(): Promise<AssessAnswer> {
    const entry = this.transcript.assessments[this.assessed.count];
    if (!entry) throw new AgentError(`${this.name}: the transcript has ${this.transcript.assessments.length} assessments and one more was asked for`);
    this.assessed.count += 1;
    return { answer: structuredClone(entry.answer), usage: { ...entry.usage } };
  }

  async nextTurn(context: AgentContext): Promise<AgentTurn> {
    const turn = this.transcript.turns[this.consumed];
    if (!turn) {
      throw new AgentError(
        `${this.name}: the transcript has ${counted(this.transcript.turns.length, 'turn')} and turn ${context.turn} was asked for`,
      );
    }
    this.consumed += 1;
    return structuredClone(turn) as AgentTurn;
  }
}
