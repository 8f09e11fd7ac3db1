import { realpathSync } from 'node:fs';
import { describeError } from '../errors.js';
import type { AgentTurn } from '../types.js';
import { mapAgentCall, bridgedCallProblem, withRelativePaths, type MappedCall } from '../bridge/map.js';
import type { BridgeDecision, QueuedRequest } from '../bridge/inbox.js';
import type { BridgeRequest } from '../bridge/protocol.js';
import { harnessFiles } from '../tools.js';
import type { ToolCall } from '../types.js';
import type { Decider } from '../events.js';
import { stopText, type AgentWatch } from './agent-watch.js';
import { approval } from './ask-operator.js';
import type { RunContext } from './context.js';
import type { Gen } from './types.js';

/** The part of the turn's watch (agent-watch.ts) a bridged call goes through. */
type TurnWatch = Pick<AgentWatch, 'onEvent' | 'stop'>;

/** Said to the agent about a call its hook asked about when the turn ended first. */
const TURN_ENDED = "the agent's turn ended before loopdeck decided";

/**
 * Waits for the agent's turn while serving the calls its pre-tool hook asks about
 * (docs/design.md, "Approvals of CLI agents"): each request queued in the run's inbox is
 * decided between awaits, through the same gate and prompt as loopdeck's own calls, and
 * answered. Without an inbox this is a plain wait. `watch`: the turn's watch over the
 * limits (agent-watch.ts); a bridged call's events go through it like the parsed output's,
 * and a call that makes it stop the agent is denied.
 * @returns the turn; @throws what the turn throws
 */
export async function* awaitTurn(ctx: RunContext, turn: Promise<AgentTurn>, watch?: TurnWatch): Gen<AgentTurn> {
  const inbox = ctx.options.approvals;
  if (!inbox) return await turn;
  const settled = turn.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  inbox.open();
  try {
    for (;;) {
      const first = await Promise.race([settled, inbox.ready().then(() => null)]);
      if (first) {
        if ('error' in first) throw first.error;
        return first.value;
      }
      for (let queued = inbox.take(); queued; queued = inbox.take()) yield* serve(ctx, queued, watch);
    }
  } finally {
    inbox.close(TURN_ENDED);
  }
}

/** One queued request, decided and answered; a run torn down meanwhile answers deny. */
async function* serve(ctx: RunContext, queued: QueuedRequest, watch?: TurnWatch): Gen {
  let decision: BridgeDecision = { decision: 'deny', reason: 'loopdeck stopped before deciding' };
  try {
    decision = yield* bridgedCall(ctx, queued.request, watch);
  } finally {
    queued.respond(decision);
  }
}

/**
 * The hook's id of the call when the agent's output uses the same one, else `null` (the
 * call is then matched by what it does). Codex's hook gets the model's call id
 * (`call_...`) while `codex exec --json` numbers its items `item_N`: never the same.
 */
function outputId(request: BridgeRequest): string | null {
  return request.cli === 'codex' ? null : request.tool_use_id;
}

/** What the rules and checks say of a bridged call before anyone is asked. */
type Verdict = { kind: 'deny'; reason: string } | { kind: 'allow' } | { kind: 'ask'; call: ToolCall; reason: string };

/**
 * One call the agent's hook asks about: recorded as the agent's `tool.call` (once, shared
 * with its parsed output), refused when it leaves the workspace or writes git's or
 * loopdeck's own files, else judged by the approval rules (`before_tool_call`: the same
 * gate, guard and hooks as loopdeck's own calls) and, when they ask, put to the operator
 * (`tool.ask`, the tool yield: same keys, timeout and "always allow"). Its `tool.decision`
 * is flushed before the answer goes back.
 */
async function* bridgedCall(ctx: RunContext, request: BridgeRequest, watch?: TurnWatch): Gen<BridgeDecision> {
  const claimed = ctx.agent.claimCall?.(outputId(request), request.tool_name, request.tool_input) ?? null;
  if (!claimed) return { decision: 'deny', reason: 'loopdeck is not running a turn of this agent' };
  for (const draft of claimed.events) (watch ? watch.onEvent(draft) : ctx.emit(draft.type, draft.data as never));
  const callId = claimed.id;
  // The call took the agent past a limit or repeated itself: the agent is being stopped, the call does not run.
  if (watch?.stop) {
    ctx.emit('tool.decision', { call_id: callId, decision: 'deny', by: 'policy', note: `loopdeck is stopping the agent: ${stopText(watch.stop)}` });
    ctx.options.sync?.();
    return { decision: 'deny', reason: `denied by the policy of loopdeck: it is stopping the agent (${stopText(watch.stop)})` };
  }
  const verdict = await judge(ctx, request, callId);
  let decision: 'approve' | 'deny' = verdict.kind === 'deny' ? 'deny' : 'approve';
  let note = verdict.kind === 'deny' ? verdict.reason : undefined;
  let always: string | undefined;
  let by: Decider = 'policy';
  if (verdict.kind === 'ask') {
    ctx.emit('tool.ask', { call_id: callId, call: verdict.call, reason: verdict.reason });
    ctx.options.sync?.();
    const { answer } = yield* approval(ctx, verdict.call, true, verdict.reason);
    decision = answer.decision;
    note = answer.note;
    always = answer.decision === 'approve' ? answer.always : undefined;
    by = answer.by ?? 'operator';
  }
  ctx.emit('tool.decision', { call_id: callId, decision, by, ...(note ? { note } : {}), ...(always ? { always } : {}) });
  ctx.options.sync?.();
  if (decision === 'approve') return { decision: 'allow', reason: `approved by the ${by} of loopdeck${note ? `: ${note}` : ''}` };
  return { decision: 'deny', reason: `denied by the ${by} of loopdeck${note ? `: ${note}` : ''}` };
}

/** The checks and the approval rules on a bridged call (each judged call of a patch of several files). */
async function judge(ctx: RunContext, request: BridgeRequest, callId: string): Promise<Verdict> {
  const { workspace, runDir, policy } = ctx.options;
  const mapping = mapAgentCall(request.cli, request.tool_name, request.tool_input);
  if (!mapping.ok) return { kind: 'deny', reason: mapping.problem };
  let mapped: MappedCall;
  let problem: string | null;
  try {
    const real = realpathSync(workspace);
    mapped = withRelativePaths(mapping.mapped, workspace, real);
    problem = bridgedCallProblem(mapped, workspace, real, harnessFiles({ ...(runDir ? { runDir } : {}), policy }));
  } catch (error) {
    // The workspace itself cannot be resolved (gone, unreadable): nothing can be checked.
    return { kind: 'deny', reason: `cannot check the call's paths: ${describeError(error)}` };
  }
  if (problem) return { kind: 'deny', reason: problem };
  let ask: string | null = null;
  for (const judged of mapped.judged) {
    const gate = await ctx.hook('before_tool_call', { call: { id: callId, ...structuredClone(judged) }, granted: ctx.state.granted });
    if (gate.decision?.type === 'deny') return { kind: 'deny', reason: gate.decision.reason };
    if (gate.decision?.type === 'pause') ask ??= gate.decision.prompt;
  }
  if (ask === null) return { kind: 'allow' };
  return { kind: 'ask', call: { id: callId, ...structuredClone(mapped.call) }, reason: ask };
}
