/**
 * Live reload of loop.yaml, carried out on a running session (docs/design.md, "Live
 * reload"): read the file again, refuse it with its errors or record what differs as
 * `policy.reloaded`, and put the changes that took effect in force. The decisions of what
 * may change are the pure functions of reload.ts.
 */
import { isDeepStrictEqual } from 'node:util';
import { ConfigErrors, describeError } from '../errors.js';
import type { LoopEvent } from '../events.js';
import { loadPolicy, repetitionSettings, type EnginePolicy, type LoopPolicy } from '../policy.js';
import { applyChanges, KEY_SECTIONS, planReload, reachedLimits, type PolicyChange } from '../reload.js';
import { revalidatePolicy } from '../saved-policy.js';
import { writableFromWorkspace } from '../workspace-path.js';
import type { CommandResult } from '../operator-command.js';
import type { RunCore } from './core.js';
import { counted } from '../../text/count.js';
import { budgetName, formatBudgetAmounts } from '../budget-units.js';
import { budgetUsage } from '../fold.js';

/** Options of {@link reloadPolicy}. */
export interface ReloadRequest {
  /** `command`: the operator's `/reload`; `watch`: `--watch-config` saw the file change. */
  trigger: 'command' | 'watch';
  /**
   * Approval rules and hooks apply without the operator's key (headless
   * `--watch-config-gates`). Never for a loop.yaml the agent can write.
   */
  gatesWithoutKey?: boolean;
}

/** Whether `policy` is a whole loop.yaml policy (a file, an agent, a workspace), not a library object. */
function isLoopPolicy(policy: EnginePolicy): policy is LoopPolicy {
  return policy.file !== undefined && policy.agent !== undefined && policy.workspace !== undefined;
}

/**
 * The policy in force where a log ends: `start` (the policy the run began with) with the
 * changes every `policy.reloaded` of `prior` applied, in order. A mix that is not a valid
 * loop.yaml policy is refused.
 * @throws ConfigErrors when the result is not valid; InvariantError for a change whose path the policy lacks
 */
export function policyInForce(start: EnginePolicy, prior: readonly LoopEvent[] | undefined): EnginePolicy {
  const changes = (prior ?? []).flatMap((e) => (e.type === 'policy.reloaded' && Array.isArray(e.data.diff) ? e.data.diff : []));
  const policy = applyChanges(start, changes);
  if (policy !== start && isLoopPolicy(policy)) revalidatePolicy(policy, `${policy.file} (the policy in force after the reloads the log records)`);
  return policy;
}

/** Why a reload cannot be made now, or `null`. */
function notNow(core: RunCore): string | null {
  const state = core.state;
  if (state.session === null || !core.live) return 'no run is going: a reload applies to a running loop';
  if (state.done) return `the run is over (${state.done.reason})`;
  if (core.halted) return 'the run was quit';
  return null;
}

/** The messages of a file that cannot be read or is not valid: the same as at start. */
function errorsOf(error: unknown): string[] {
  return error instanceof ConfigErrors ? error.errors.map((e) => e.message) : [describeError(error)];
}

/**
 * Reads the run's loop.yaml again and records what differs from the policy in force as
 * `policy.reloaded`. Changes of the live sections apply at once; approval rules and hooks
 * wait for the operator's key (unless `gatesWithoutKey`); every change of a file the agent
 * can write waits for the key; `agent`, `workspace` and the other sections that shaped the
 * run are shown and not applied; the goal is shown and ignored (only `/goal` changes it). A
 * file that cannot be read or is not valid, or whose changes would leave a policy that is
 * not valid, is refused with its errors and nothing changes. A file equal to the policy in
 * force records nothing.
 * @returns a line for the operator; never throws for a bad file
 */
export function reloadPolicy(core: RunCore, request: ReloadRequest): CommandResult {
  const busy = notNow(core);
  // Well formed, but not now: nothing in the typed line to fix (the command bar closes).
  if (busy) return { ok: false, refused: true, message: busy };
  const current = core.options.policy;
  if (!isLoopPolicy(current)) return { ok: false, message: 'this run was given its policy as an object, not a loop.yaml: there is no file to reload' };
  const file = current.file;
  const inside = writableFromWorkspace(core.options.workspace, file);
  let next: LoopPolicy;
  try {
    next = loadPolicy(file);
  } catch (error) {
    return refuse(core, file, request.trigger, errorsOf(error), inside);
  }
  const diff = planReload(current, next, { inside: inside !== null, gatesWithoutKey: request.gatesWithoutKey === true && inside === null });
  const changes = core.options.hooksFor ? diff : diff.map(withoutHookRebuild);
  if (changes.length === 0) return { ok: true, message: `${file}: no change from the policy in force` };
  const secrets = secretChanges(core, file, changes);
  if (secrets.length > 0) return refuse(core, file, request.trigger, secrets, inside);
  const merged = applyChanges(current, changes);
  try {
    if (merged !== current) revalidatePolicy(merged, `${file} (as it would apply mid-run)`);
  } catch (error) {
    return refuse(core, file, request.trigger, errorsOf(error), inside);
  }
  core.emit('policy.reloaded', { file, trigger: request.trigger, diff: changes, ...(inside ? { inside_workspace: true as const } : {}) });
  install(core, merged, changes);
  const reached = reachedLimits(changes, budgetUsage(core.state, core.clock())).map(reachedText);
  // A limit already reached first: on a small terminal the answer may have one row.
  return { ok: true, message: [...reached, summary(file, changes, inside)].join('; ') };
}

/** A limit set at or below what is used, in the console's units: `turns limit 3 already reached (5 used): the run pauses at its next budget check`. */
function reachedText(reached: ReturnType<typeof reachedLimits>[number]): string {
  const [limit, used] = formatBudgetAmounts(reached.dimension, [reached.limit, reached.used]);
  const when = reached.effect === 'applied' ? 'the run pauses at its next budget check' : 'if you apply it, the run pauses at its next budget check';
  return `${budgetName(reached.dimension)} limit ${limit} already reached (${used} used): ${when}`;
}

/**
 * The changes that would take effect (now or on a key) whose value holds a secret: the log
 * records every event redacted, so resume could not rebuild the policy they make.
 */
function secretChanges(core: RunCore, file: string, changes: readonly PolicyChange[]): string[] {
  const recorded = core.redact(changes);
  return changes
    .filter((change, i) => (change.effect === 'applied' || change.effect === 'awaiting_key') && !isDeepStrictEqual(change, recorded[i]))
    .map((change) => `${file}: ${change.path}: expected a value without a secret (the log records changes redacted, so resume could not rebuild this policy; read the secret from an environment variable), found one that holds a secret`);
}

/** A change of approval rules or hooks in a session that cannot rebuild its hooks: it needs a new run. */
function withoutHookRebuild(change: PolicyChange): PolicyChange {
  const section = /^[a-z_]+/.exec(change.path)?.[0] ?? '';
  return KEY_SECTIONS.includes(section) && (change.effect === 'applied' || change.effect === 'awaiting_key') ? { ...change, effect: 'needs_new_run' } : change;
}

/** Records a refused file: its errors, nothing changed. */
function refuse(core: RunCore, file: string, trigger: ReloadRequest['trigger'], errors: string[], inside: string | null): CommandResult {
  core.emit('policy.reloaded', { file, trigger, diff: [], errors, ...(inside ? { inside_workspace: true as const } : {}) });
  // Nothing in the typed line to fix (the file is what is wrong): a refusal, the command bar closes.
  if (errors.length === 1) return { ok: false, refused: true, message: `${file} refused, the run goes on unchanged: ${errors[0]}` };
  // A list does not fit a notice: its count, the first, and where every one is written out.
  return {
    ok: false,
    refused: true,
    message: `${file} refused with ${errors.length} errors, the run goes on unchanged; the policy.reloaded event lists all ${errors.length} (the console opens it from the timeline); the first: ${errors[0]}`,
  };
}

/** Puts `policy` in force: what the executors read, the repetition guard's settings, and the hooks when approval rules or hooks changed. */
function install(core: RunCore, policy: EnginePolicy, changes: readonly PolicyChange[]): void {
  if (policy === core.options.policy) return;
  core.options.policy = policy;
  core.repetitionOptions = repetitionSettings(policy.repetition, policy.file ?? 'policy');
  const gates = changes.some((c) => c.effect === 'applied' && KEY_SECTIONS.includes(/^[a-z_]+/.exec(c.path)?.[0] ?? ''));
  if (gates && core.options.hooksFor) core.hooks = core.options.hooksFor(policy);
}

/** One line on what a reload did. */
function summary(file: string, changes: readonly PolicyChange[], inside: string | null): string {
  const count = (effect: PolicyChange['effect']) => changes.filter((c) => c.effect === effect).length;
  const parts = [
    `${count('applied')} applied`,
    ...(count('awaiting_key') > 0 ? [`${count('awaiting_key')} wait for your key (y applies, n keeps the policy in force)${inside ? `: ${file} is writable by the agent (${inside})` : ''}`] : []),
    ...(count('needs_new_run') > 0 ? [`${count('needs_new_run')} need a new run`] : []),
    ...(count('goal_only') > 0 ? [`${counted(count('goal_only'), 'goal change')} ignored: use /goal`] : []),
  ];
  return `${file} reloaded: ${parts.join(', ')}`;
}

/**
 * The operator's answer to the reload recorded at `seq` whose changes wait for a key:
 * `accept` applies them as they were shown (validated again over the policy in force),
 * otherwise they are declined. Either way `policy.reloaded` (`trigger: key`) records it.
 * @returns not ok when no reload waits at `seq` (answered, or replaced by a newer one)
 */
export function answerReload(core: RunCore, seq: number, accept: boolean): CommandResult {
  const busy = notNow(core);
  // Well formed, but not now: nothing in the typed line to fix (the command bar closes).
  if (busy) return { ok: false, refused: true, message: busy };
  const pending = core.state.reloadPending;
  if (!pending || pending.seq !== seq) return { ok: false, message: 'no reload waits for an answer there (it was answered, or a newer reload replaced it)' };
  const current = core.options.policy;
  const changes = pending.changes.map((c): PolicyChange => ({ ...c, effect: accept ? 'applied' : 'declined' }));
  const merged = applyChanges(current, changes);
  if (accept && merged !== current && isLoopPolicy(merged)) {
    try {
      revalidatePolicy(merged, `${pending.file} (as it would apply mid-run)`);
    } catch (error) {
      core.emit('policy.reloaded', { file: pending.file, trigger: 'key', answers: seq, diff: changes.map((c) => ({ ...c, effect: 'declined' })), errors: errorsOf(error) });
      return { ok: false, message: `the held changes no longer make a valid policy, nothing applied: ${errorsOf(error).join('; ')}` };
    }
  }
  core.emit('policy.reloaded', { file: pending.file, trigger: 'key', answers: seq, diff: changes, ...(pending.inside ? { inside_workspace: true as const } : {}) });
  if (accept) install(core, merged, changes);
  return { ok: true, message: accept ? `${counted(changes.length, 'held change')} of ${pending.file} applied` : `${counted(changes.length, 'held change')} of ${pending.file} declined; the policy in force stays` };
}
