import { TurnInterrupted } from '../agents/agent.js';
import { assessmentPrompt, harnessViews, parseAssessment } from '../assessment.js';
import { costOf } from '../budget.js';
import { AgentError, describeError } from '../errors.js';
import type { SessionState } from '../fold.js';
import { buildMemory, type AcceptanceRowView } from '../memory.js';
import type { CheckpointRecord, TokenUsage } from '../types.js';
import type { RunContext } from './context.js';

/**
 * The acceptance rows of the run (criterion text and status), when it has an acceptance
 * matrix: the execution memory lists which are done and the assessment compares with them.
 * A run without a checkable criterion gives `null`: nothing is shown. Rows keep their
 * positions (the assessment matches criteria by position).
 */
export function acceptanceRowsOf(state: SessionState): AcceptanceRowView[] | null {
  const { rows } = state.acceptance;
  // Criteria without a check are not a matrix: nothing to show or compare with.
  if (!rows.some((r) => r.status !== 'NOT_CHECKABLE')) return null;
  // A row's check measured something once it carries evidence (a command's exit, a signal's value).
  return rows.map((r) => ({ text: r.text, status: r.status, checked: r.evidence !== undefined }));
}

/**
 * The checkpoint `record` with its execution memory (memory.ts): the previous checkpoint's
 * memory, what failed since (folded), and the acceptance rows. Pure of I/O.
 */
export function withMemory(state: SessionState, record: CheckpointRecord): CheckpointRecord {
  const previous = state.checkpoints[state.checkpoints.length - 1]?.memory ?? null;
  const acceptance = acceptanceRowsOf(state)?.filter((r) => r.status !== 'NOT_CHECKABLE') ?? null;
  const memory = buildMemory({ previous, record, failures: state.failedSinceCheckpoint, acceptance });
  return { ...record, memory };
}

const ZERO: TokenUsage = { input_tokens: 0, output_tokens: 0 };

/**
 * `progress.assess`: asks the agent to assess each success criterion after the checkpoint
 * of `record` and records the answer as `progress.assessed` (parsed, unparsed with the raw
 * head, or failed with the reason). An agent that cannot be asked is said once in an
 * `agent.notice`. Never ends the run: an AgentError (or an interrupted wait) is recorded, a stop or quit in
 * flight records nothing; any other error is the engine's and propagates.
 */
export async function assessStep(ctx: RunContext, record: CheckpointRecord): Promise<void> {
  const { policy } = ctx.options;
  const criteria = ctx.state.goal?.success_criteria ?? [];
  if (!policy.progress.assess || criteria.length === 0) return;
  const agent = ctx.agent;
  if (!agent.assess) {
    if (ctx.memory.assessNoticed) return;
    ctx.memory.assessNoticed = true;
    ctx.emit('agent.notice', { text: `progress.assess: ${agent.name} cannot be asked to assess the criteria (only openai and scripted agents can); no assessment is recorded` });
    return;
  }
  const acceptance = acceptanceRowsOf(ctx.state);
  const harness = harnessViews(criteria, { acceptance, verify: ctx.state.lastVerify, checkpoint: record });
  const base = { iteration: record.iteration, criteria: [...criteria], harness };
  let answer;
  try {
    answer = await agent.assess({ ...ctx.agentContext(), criteria, prompt: assessmentPrompt(criteria) });
  } catch (error) {
    if (ctx.halted || ctx.signal.aborted) return;
    if (!(error instanceof AgentError) && !(error instanceof TurnInterrupted)) throw error;
    const spent = error instanceof AgentError ? error.spent : undefined;
    const usage = spent?.usage ?? ZERO;
    const unreported = spent?.unreported ?? [];
    ctx.emit('progress.assessed', { ...base, outcome: 'failed', reason: describeError(error), usage, cost_usd: costOf(usage, policy.pricing), ...(unreported.length > 0 ? { unreported } : {}) });
    return;
  }
  const parsed = parseAssessment(answer.answer, criteria);
  const usage = answer.usage;
  const spentData = { usage, cost_usd: costOf(usage, policy.pricing), ...(answer.usage_unreported ? { unreported: ['tokens', 'cost_usd'] as Array<'tokens' | 'cost_usd'> } : {}) };
  if (parsed.ok) ctx.emit('progress.assessed', { ...base, outcome: 'parsed', items: parsed.items, ...spentData });
  else ctx.emit('progress.assessed', { ...base, outcome: 'unparsed', reason: parsed.reason, raw_head: parsed.raw_head, ...spentData });
}
