import { z } from 'zod';
import { AgentError } from '../errors.js';
import type { AgentTurn } from '../types.js';
import { loadYamlWith, parseYamlWith } from '../yaml-file.js';
import type { Agent, AgentContext, PlanContext } from './agent.js';

const toolCallSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  args: z.record(z.string(), z.unknown()).default({}),
});

const reportSchema = z.strictObject({
  new_evidence: z.array(z.strictObject({ claim: z.string(), evidence_ref: z.string() })).optional(),
  eliminated_hypotheses: z.array(z.string()).optional(),
  remaining_hypotheses: z.array(z.string()).optional(),
});

const turnSchema = z
  .strictObject({
    thought: z.string().optional(),
    tool_calls: z.array(toolCallSchema).default([]),
    report: reportSchema.optional(),
    usage: z
      .strictObject({ input_tokens: z.int().nonnegative(), output_tokens: z.int().nonnegative() })
      .default({ input_tokens: 0, output_tokens: 0 }),
    final: z.string().min(1).optional(),
  })
  .refine((turn) => !(turn.final !== undefined && turn.tool_calls.length > 0), {
    message: 'a turn is either final or calls tools, not both',
  });

const reconciliationSchema = z.unknown();

/**
 * The transcript format of docs/design.md, "The scripted agent", with the answers the loop
 * patterns ask for besides turns: `replans` (Plan-and-Execute, in order), `reflections`
 * (Reflexion, in order) and `reconciliations` (goal revisions, in order).
 */
export const transcriptSchema = z.strictObject({
  plan: z.array(z.string().min(1)).optional(),
  replans: z.array(z.array(z.string().min(1))).default([]),
  reflections: z.array(z.string().min(1)).default([]),
  reconciliations: z.array(reconciliationSchema).default([]),
  turns: z.array(turnSchema).default([]),
  /** Fresh laps: the turns of each lap's new agent, in lap order. */
  laps: z.array(z.array(turnSchema)).optional(),
});

export type Transcript = z.output<typeof transcriptSchema>;

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
  ) {
    this.name = name;
  }

  /** @throws ConfigErrors when the file is unreadable or not a valid transcript */
  static fromFile(file: string): ScriptedAgent {
    return new ScriptedAgent(loadYamlWith(transcriptSchema, file), `scripted:${file}`);
  }

  /** @throws ConfigErrors when `source` is not a valid transcript */
  static fromYaml(source: string, file = '<transcript>'): ScriptedAgent {
    return new ScriptedAgent(parseYamlWith(transcriptSchema, source, file), `scripted:${file}`);
  }

  /**
   * The agent of lap `lap` (1-based) for fresh laps: a new agent whose turns are the
   * transcript's `laps[lap - 1]` (none left is an AgentError on its first turn).
   */
  forLap(lap: number): ScriptedAgent {
    const turns = this.transcript.laps?.[lap - 1] ?? [];
    return new ScriptedAgent({ ...this.transcript, turns, laps: undefined }, `${this.name} lap ${lap}`);
  }

  /** Turns not consumed yet. */
  get remaining(): number {
    return this.transcript.turns.length - this.consumed;
  }

  /** Skips the turns already recorded in an earlier process (crash-resume). */
  restore(turns: readonly AgentTurn[]): void {
    this.consumed = Math.min(this.transcript.turns.length, turns.length);
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

  async nextTurn(context: AgentContext): Promise<AgentTurn> {
    const turn = this.transcript.turns[this.consumed];
    if (!turn) {
      throw new AgentError(
        `${this.name}: the transcript has ${this.transcript.turns.length} turns and turn ${context.turn} was asked for`,
      );
    }
    this.consumed += 1;
    return structuredClone(turn) as AgentTurn;
  }
}
