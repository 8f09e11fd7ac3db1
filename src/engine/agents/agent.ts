import type { AgentTurn, Goal } from '../types.js';

/** One entry of what the agent has seen, oldest first. */
export type AgentMessage =
  | { role: 'tool'; call_id: string; name: string; status: string; content: string }
  | { role: 'harness'; content: string };

/** What the agent gets for one turn. */
export interface AgentContext {
  /** 1-based turn number of the run. */
  turn: number;
  /** The goal as it stands now (revisions included). */
  goal: Goal;
  /** Tool results and harness notes since the start of the run. */
  history: readonly AgentMessage[];
}

/**
 * Anything that answers turns: a scripted transcript, a model behind an API, a CLI agent.
 * `nextTurn` is called once per turn; it throws `AgentError` when it cannot answer.
 */
export interface Agent {
  readonly name: string;
  nextTurn(context: AgentContext): Promise<AgentTurn>;
}
