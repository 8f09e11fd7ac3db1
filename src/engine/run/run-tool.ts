import { afterDetection } from '../decide.js';
import { describeError, ToolError } from '../errors.js';
import { checkedOutcome } from '../tool-outcome.js';
import { cloneData } from '../clone.js';
import { detectionEventData, observeCall } from '../repetition.js';
import { callProblem, harnessFiles, pathProblem, runTool } from '../tools.js';
import type { ToolCall, ToolResult } from '../types.js';
import type { HarnessPath } from '../workspace-path.js';
import { approval } from './ask-operator.js';
import type { RunContext } from './context.js';
import { abortRun } from './finish.js';
import type { Done, Gen } from './types.js';
import { guardWait } from './wait-guard.js';

/**
 * The queued call of an open step: the repetition guard, the `before_tool_call` gate,
 * `tool.call`, AWAITING_TOOL, the decision, the tool, and REFLECTING.
 * @returns the outcome when the run ended on the way (a repetition stop, an abort)
 */
export async function* runToolStep(ctx: RunContext, step: number, queued: ToolCall): Gen<Done> {
  const call = unredacted(ctx, queued);
  if (ctx.memory.repetitionChecked !== call.id) {
    ctx.memory.repetitionChecked = call.id;
    const done = yield* checkRepetition(ctx, call);
    if (done) return done;
  }
  // A call the built-in tools cannot run is refused here, never put to the operator: an
  // unknown tool, arguments its schema refuses, a path the tool would refuse whatever the files hold.
  const problem = ctx.options.runTool ? null : (callProblem(call) ?? pathProblem(call, toolPlace(ctx)));
  if (problem) {
    const error = `${call.name}: refused before approval: ${problem}`;
    ctx.emit('tool.error', { call_id: call.id, name: call.name, error });
    await ctx.hook('on_error', { source: `tool ${call.name}`, error });
    ctx.go('REFLECTING');
    return undefined;
  }
  const payload = { call: cloneData(call), granted: ctx.state.granted };
  const gate = await ctx.hook('before_tool_call', payload);
  if (gate.decision?.type === 'deny') {
    const error = `cancelled before dispatch: ${gate.decision.reason}`;
    ctx.emit('tool.error', { call_id: call.id, name: call.name, error });
    // A hook that failed was told to on_error already (its hook.error): once per cancelled call.
    if (gate.failures.length === 0) await ctx.hook('on_error', { source: `tool ${call.name}`, error });
    ctx.go('REFLECTING');
    return undefined;
  }
  const ask = gate.decision?.type === 'pause';
  const reason = gate.decision?.type === 'pause' ? gate.decision.prompt : undefined;
  ctx.emit('tool.call', { call: payload.call });
  ctx.emit('step.end', { step, outcome: 'awaiting_tool', ask, ...(reason ? { reason } : {}) });
  await ctx.hook('after_step', { step, outcome: 'awaiting_tool' });
  ctx.go('AWAITING_TOOL');
  const done = yield* decideAndRun(ctx, payload.call, ask, reason);
  if (done) return done;
  ctx.go('REFLECTING');
  return undefined;
}

/**
 * The queued call as the agent sent it: events (and so the folded state) carry tool calls
 * redacted, but approval, hooks and the tool must see what the agent asked for, or a
 * secret-looking word in the arguments would be run as `[REDACTED]`. A call recorded
 * before a restart is known only as logged. The call itself, not a copy: it is only read
 * (hooks, the operator and the tool get the copy in `runToolStep`'s payload).
 */
function unredacted(ctx: RunContext, queued: ToolCall): ToolCall {
  const calls = ctx.memory.turnCalls;
  const raw = calls[calls.length - ctx.state.queued.length];
  return raw && raw.id === queued.id && raw.name === queued.name ? raw : queued;
}

/**
 * The repetition guard, before a call is dispatched: the same call (tool and canonical
 * arguments) too often in the window, or a short cycle, raises `repetition.detected`
 * and the configured action. Continuing keeps the guard armed.
 */
async function* checkRepetition(ctx: RunContext, call: ToolCall): Gen<Done> {
  const { detection } = observeCall(ctx.memory.repetition, { call }, ctx.repetitionOptions);
  if (!detection) return undefined;
  const action = ctx.options.policy.repetition.on_detect;
  ctx.emit('repetition.detected', detectionEventData(detection, ctx.repetitionOptions));
  const next = afterDetection('repetition', action, `repetition: ${detection.rule}`);
  return next ? yield* ctx.perform(next) : undefined;
}

/**
 * AWAITING_TOOL: the decision (the operator's when asked, else the policy's), recorded and
 * flushed before the tool runs; then the tool. A denial is a `denied` result the agent
 * sees; an abort asked for while the call waited ends the run (the call never runs).
 */
export async function* decideAndRun(ctx: RunContext, call: ToolCall, ask: boolean, reason?: string, interrupted?: boolean): Gen<Done> {
  const { answer, aborting } = yield* approval(ctx, call, ask, reason, interrupted);
  // Asked, the answer says who gave it (a timeout or a headless policy is no operator).
  const by = ask ? (answer.by ?? 'operator') : 'policy';
  const always = answer.decision === 'approve' && answer.always ? { always: answer.always } : {};
  ctx.emit('tool.decision', { call_id: call.id, decision: answer.decision, by, ...(answer.note ? { note: answer.note } : {}), ...always });
  ctx.options.sync?.();
  let result: ToolResult | null = null;
  let error: string | null = null;
  if (answer.decision === 'deny') {
    const why = answer.note ? `: ${answer.note}` : '';
    result = { call_id: call.id, name: call.name, status: 'denied', output: `denied by the ${by}${why}`, exit_code: null, duration_ms: 0 };
    ctx.emit('tool.result', { result });
    if (aborting) {
      await ctx.hook('after_tool_call', { call, result, error });
      return abortRun(ctx, answer.note!);
    }
  } else {
    ({ result, error } = await dispatch(ctx, call));
  }
  await ctx.hook('after_tool_call', { call, result, error });
  return undefined;
}

/** Where the tools work: the workspace, and loopdeck's own files there that they never write. */
function toolPlace(ctx: RunContext): { workspace: string; harness: HarnessPath[] } {
  return { workspace: ctx.options.workspace, harness: harnessFiles({ runDir: ctx.options.runDir, policy: ctx.options.policy }) };
}

/**
 * Runs an approved call; a {@link ToolError} is recorded as `tool.error` and told to
 * `on_error`. The wait is guarded ({@link guardWait}): a tool still running when the
 * wall-clock budget runs out is killed (`killed: budget`), and the budget step follows at
 * the start of the next step.
 */
async function dispatch(ctx: RunContext, call: ToolCall): Promise<{ result: ToolResult | null; error: string | null }> {
  const started = ctx.clock();
  const { options } = ctx;
  const guard = guardWait(ctx, started);
  const limit = call.name === 'shell' ? options.policy.tools.shell_timeout * 1000 : null;
  options.onWait?.({ kind: 'tool', name: call.name, call_id: call.id, since: Date.now(), limit_ms: limit });
  try {
    const returned: unknown = await (options.runTool ?? runTool)(call, {
      ...toolPlace(ctx),
      shellTimeoutSeconds: options.policy.tools.shell_timeout,
      outputLimit: options.policy.tools.output_limit_bytes,
      signal: guard.signal,
    }).finally(() => {
      guard.dispose();
      options.onWait?.(null);
    });
    const outcome = checkedOutcome(returned, `the tool runner for ${JSON.stringify(call.name)}`);
    const result: ToolResult = { call_id: call.id, name: call.name, ...outcome, duration_ms: Math.max(0, ctx.clock() - started) };
    ctx.emit('tool.result', { result });
    return { result, error: null };
  } catch (caught) {
    // A runner of the caller's own may throw anything: its error is the call's, not the engine's.
    const thrown = caught instanceof ToolError || !options.runTool ? caught : new ToolError(call.name, `the tool runner threw: ${describeError(caught)}`);
    if (!(thrown instanceof ToolError)) throw thrown;
    ctx.emit('tool.error', { call_id: call.id, name: call.name, error: thrown.message });
    await ctx.hook('on_error', { source: `tool ${call.name}`, error: thrown.message });
    return { result: null, error: thrown.message };
  }
}
