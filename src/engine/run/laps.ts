import type { Agent } from '../agents/agent.js';
import { AgentError } from '../errors.js';
import { agentCheckpoint, checkpointMemory } from '../handover.js';
import { readHandover } from '../lap-handover.js';
import type { RunContext } from './context.js';

/**
 * The agent of lap `lap` (1-based), new from the factory.
 * @throws AgentError when the session has no agent factory
 */
export function lapAgent(ctx: Pick<RunContext, 'options'>, lap: number): Agent {
  if (!ctx.options.agentFactory) throw new AgentError('fresh laps need an agent factory: each lap starts a new agent');
  return ctx.options.agentFactory(lap);
}

/** Starts lap `lap` with a new agent, an empty history and the hand-over: the progress file's path, size, hash and a bounded excerpt, and the last checkpoint's memory (not the baseline's: nothing the agent did is in it). */
export async function startLap(ctx: Pick<RunContext, 'options' | 'agent' | 'emit' | 'state'>, lap: number): Promise<void> {
  const { laps } = ctx.options.policy;
  ctx.agent = lapAgent(ctx, lap);
  const handover = await readHandover(ctx.options.workspace, laps.progress_file);
  const memory = checkpointMemory(agentCheckpoint(ctx.state.checkpoints));
  ctx.emit('lap.start', { lap, max_laps: laps.max_laps, handover, ...(memory ? { memory } : {}) });
}
