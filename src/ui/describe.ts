import { describeFinding } from '../engine/constraints.js';
import { assertNever, type LoopEvent, type VerifyCommandResult } from '../engine/events.js';
import { describeChanges } from '../engine/reload.js';
import { pauseReasonLabel } from '../engine/reasons.js';
import { targetsNotPassing } from '../engine/target-tests.js';
import { budgetName, formatBudgetAmounts, formatUsd, spentText } from '../engine/budget-units.js';
import { sanitize, withOtherSpaces } from './text.js';
import { counted } from '../text/index.js';

/**
 * How a verify command ended, in a few words: its exit code, or, when it has none because
 * loopdeck killed it, why (`timed out after 60s`, `killed: the run was quit`: the line the
 * verifier puts first in its output), else `no exit code`.
 */
export function verifyOutcome(c: Pick<VerifyCommandResult, 'exit_code' | 'output'>): string {
  if (c.exit_code !== null) return String(c.exit_code);
  const why = c.output.split('\n', 1)[0]!;
  return /^(timed out after \S+|killed: the run was \w+)$/.test(why) ? why : 'no exit code';
}

/**
 * One line a person can read for each event in the timeline. Untrusted text is sanitized
 * as it is put in, and the whole line once more (sanitizing is idempotent), so nothing
 * from a log, a hook or a tool reaches the terminal raw.
 */
export function describeEvent(e: LoopEvent): string {
  return sanitize(describeRaw(e), { oneLine: true });
}

function describeRaw(e: LoopEvent): string {
  const clean = (t: string) => sanitize(t, { oneLine: true });
  switch (e.type) {
    case 'session.start':
      return `session started: ${clean(e.data.goal.objective)} (${e.data.pattern})`;
    case 'session.resume':
      return `resumed (${e.data.from})${e.data.note ? `: ${clean(e.data.note)}` : ''}`;
    case 'session.pause':
      return `paused: ${clean(pauseReasonLabel(e.data.reason))}`;
    case 'session.complete':
      return `complete: ${e.data.reason}: ${clean(e.data.summary)}`;
    case 'state.transition':
      return `${e.data.from} → ${e.data.to}`;
    case 'plan.draft':
      return `plan drafted: ${counted(e.data.steps.length, 'step')}`;
    case 'plan.commit':
      return `plan committed (${e.data.kind}): ${counted(e.data.steps.length, 'step')}${e.data.reason ? ` — ${clean(e.data.reason)}` : ''}`;
    case 'step.start':
      return `step ${e.data.step} started (${clean(e.data.title)})`;
    case 'step.end':
      return `step ${e.data.step} ${e.data.outcome}${e.data.thought ? `: ${clean(e.data.thought)}` : ''}`;
    case 'model.call': {
      const r = e.data.response;
      const what = r.final !== undefined ? `claims done: ${r.final}` : r.thought ?? '';
      return `turn ${e.data.turn}: ${clean(what)} (${e.data.usage.input_tokens}+${e.data.usage.output_tokens} tok)`;
    }
    case 'tool.call':
      return `${e.data.by === 'agent' ? 'agent ran' : 'tool call'} ${e.data.call.name} ${withOtherSpaces(clean(JSON.stringify(e.data.call.args)))}`;
    case 'tool.ask':
      return `agent asks to run ${e.data.call.name} ${withOtherSpaces(clean(JSON.stringify(e.data.call.args)))}${e.data.reason ? ` (${clean(e.data.reason)})` : ''}`;
    case 'tool.decision':
      return `${e.data.decision === 'approve' ? 'approved' : 'denied'} by ${e.data.by}${e.data.note ? `: ${clean(e.data.note)}` : ''}`;
    case 'tool.result': {
      const r = e.data.result;
      const exit = r.exit_code === null ? '' : ` exit ${r.exit_code}`;
      const by = r.killed === 'budget' ? ' by the wall-clock budget' : r.killed && r.killed !== 'timeout' ? ` by ${r.killed}` : '';
      const cut = r.truncated ? `, truncated from ${r.output_bytes ?? '?'} bytes` : '';
      return `${r.name} ${r.status}${by}${exit} (${r.duration_ms} ms${cut}): ${clean(r.output).slice(0, 160)}`;
    }
    case 'tool.error':
      return `${e.data.name} error: ${clean(e.data.error)}`;
    case 'budget.warn':
      return `budget ${e.data.exceeded ? 'exhausted' : 'warning'}: ${budgetName(e.data.dimension)} ${spentText(e.data.dimension, e.data.used, e.data.limit)}`;
    case 'budget.extended':
      {
      const [by, limit] = formatBudgetAmounts(e.data.dimension, [e.data.by, e.data.limit]);
      return `budget raised: ${budgetName(e.data.dimension)} +${by} → ${limit}`;
    }
    case 'checkpoint.recorded': {
      const c = e.data.checkpoint;
      return `checkpoint #${c.index + 1} (${c.baseline ? 'baseline at the run start' : `turn ${c.iteration}`}): ${c.status}${c.stagnation_detected ? ' + STAGNATION_DETECTED' : ''}, counter ${c.counter}/${c.threshold}`;
    }
    case 'stagnation.detected':
      return `STAGNATION_DETECTED ${e.data.counter}/${e.data.threshold} → ${e.data.action}`;
    case 'checkpoint.unknown':
      return `UNKNOWN ${counted(e.data.in_row, 'checkpoint')} in a row → ${e.data.action}: ${clean(e.data.why)}`;
    case 'repetition.detected':
      return `repetition detected: ${e.data.count}× ${e.data.hash}`;
    case 'goal.revised':
      return `goal revised (${e.data.revision.directive}): ${clean(e.data.revision.text)}`;
    case 'lap.start':
      return `lap ${e.data.lap}/${e.data.max_laps} started with a fresh agent`;
    case 'lap.end':
      return `lap ${e.data.lap} ended: ${e.data.outcome}${e.data.note ? ` (${clean(e.data.note)})` : ''}`;
    case 'workspace.snapshot':
      return e.data.git ? `workspace tree ${e.data.tree?.slice(0, 8)}${e.data.new_commits ? `, ${counted(e.data.new_commits, 'new commit')}` : ''}` : 'workspace is not a git repo: progress unknown';
    case 'agent.notice':
      return clean(e.data.text);
    case 'agent.message': {
      const text = e.data.text || (e.data.reasoning ? `(thinking) ${e.data.reasoning}` : '(tool use)');
      return `${e.data.starts_turn ? 'agent' : 'agent, continued'}: ${clean(text)}`;
    }
    case 'agent.usage': {
      const tokens = (n: number | null) => (n === null ? 'unknown' : String(n));
      const cost = e.data.cost_usd === null ? 'cost unknown' : formatUsd(e.data.cost_usd);
      return `agent usage: +${tokens(e.data.input_tokens)} in, +${tokens(e.data.output_tokens)} out tokens, ${cost}`;
    }
    case 'abort.recorded':
      return `aborted: workspace ${clean(e.data.stash)}; report ${clean(e.data.report)}`;
    case 'verify.result': {
      const open = e.data.acceptance?.not_done ?? [];
      const rows = open.length > 0 ? `; criteria not done: ${open.map((r) => `#${r.index + 1} ${r.status}`).join(', ')}` : '';
      const targets = (e.data.targets ?? []).flatMap((t) =>
        t.unmeasured !== undefined ? [`; target tests of "${t.observer}" not measured: ${t.unmeasured}`] : t.not_passing_count > 0 ? [`; ${targetsNotPassing(t)}`] : [],
      );
      return clean(`verify ${e.data.passed ? 'passed' : 'failed'}: ${e.data.commands.map((c) => `${c.command} → ${verifyOutcome(c)}`).join(', ')}${rows}${targets.join('')}`);
    }
    case 'acceptance.checked': {
      const count = (status: string) => e.data.rows.filter((r) => r.status === status).length;
      const checkable = e.data.rows.filter((r) => r.status !== 'NOT_CHECKABLE').length;
      const blocked = count('BLOCKED') > 0 ? `, ${count('BLOCKED')} blocked` : '';
      return `acceptance (${e.data.trigger === 'verify' ? 'before the verdict' : `turn ${e.data.iteration}`}): ${count('DONE')}/${checkable} criteria done, ${count('IN_PROGRESS')} in progress${blocked}`;
    }
    case 'reflection.recorded':
      return `reflection after attempt ${e.data.attempt}: ${clean(e.data.text)}`;
    case 'context.compacted': {
      const d = e.data;
      const dropped = d.dropped_turns > 0 ? `, ${counted(d.dropped_turns, 'older turn')} left out` : '';
      return `context compacted before turn ${d.turn}: ~${d.before_tokens} → ~${d.after_tokens} tokens of ${d.window_tokens}; ${counted(d.kept_turns, 'newest turn')} kept whole, ${counted(d.elided_count, 'output')} cut to first/last lines${dropped}`;
    }
    case 'constraint.violated':
      return `${clean(describeFinding({ ...e.data, outcome: 'violated' }))} → ${e.data.action}`;
    case 'constraint.unchecked':
      return clean(describeFinding({ ...e.data, outcome: 'error' }));
    case 'hook.error':
      return `hook ${e.data.hook} (${e.data.topic}) failed: ${clean(e.data.error)}`;
    case 'process.start':
      return `process ${e.data.pid} started (group ${e.data.pgid}): ${clean(e.data.command)}`;
    case 'process.reaped':
      return clean(e.data.note);
    case 'policy.reloaded': {
      const d = e.data;
      const what = d.trigger === 'key' ? 'reload answered' : `loop.yaml reloaded (${d.trigger === 'watch' ? 'file changed' : '/reload'})`;
      if (d.errors && d.trigger !== 'key') return `${what}: refused, nothing changed${d.errors.length > 1 ? ` (${d.errors.length} errors, listed in the detail: Enter)` : ''}: ${clean(d.errors.join('; '))}`;
      const inside = d.inside_workspace ? ' [inside the workspace: every change needs a key]' : '';
      return `${what}${inside}: ${clean(describeChanges(d.diff))}${d.errors ? `; ${clean(d.errors.join('; '))}` : ''}`;
    }
    case 'progress.assessed': {
      const d = e.data;
      if (d.outcome !== 'parsed') return `assessment (reported) at turn ${d.iteration} ${d.outcome}: ${clean(d.reason ?? '')}`;
      const count = (v: string) => (d.items ?? []).filter((i) => i.verdict === v).length;
      return `assessment (reported) at turn ${d.iteration}: ${count('met')} met, ${count('partly')} partly, ${count('not')} not of ${d.criteria.length}`;
    }
    default:
      return assertNever(e);
  }
}

