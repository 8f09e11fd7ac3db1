import { HookRegistry } from '../engine/hooks.js';
import type { EnginePolicy, LoopPolicy } from '../engine/policy.js';
import type { Redactor } from '../engine/redact.js';
import path from 'node:path';
import { approvalGate } from './approval-gate.js';
import { commandHook } from './command-hook.js';
import { destructiveDeny } from './destructive-deny.js';
import { traceWriter } from './trace-writer.js';

export { approvalGate } from './approval-gate.js';
export { commandHook, HookCommandError, type CommandHookSpec } from './command-hook.js';
export { traceWriter } from './trace-writer.js';
export { destructiveDeny } from './destructive-deny.js';

/** The built-in gates that run first in `before_tool_call`, in this order, unless `approval.builtin_gates: off`. */
export const BUILTIN_GATES = ['approval-gate', 'destructive-deny'] as const;

/** Whether a policy keeps the built-in gates; a policy saved before the setting existed keeps them. */
export function builtinGatesOn(policy: Pick<LoopPolicy, 'approval'>): boolean {
  return (policy.approval as { builtin_gates?: 'on' | 'off' }).builtin_gates !== 'off';
}

/**
 * The warning for a policy that switches the built-in gates off, or `null` when they are on.
 * One text for `validate` and headless runs (the console header shows it from `session.start`).
 * @param source the file the policy was read from, named in the warning (default: its
 *   loop.yaml, `policy.file`; `resume` names the run's `policy.json`)
 */
export function builtinGatesWarning(policy: Pick<LoopPolicy, 'approval' | 'hooks' | 'file'>, source: string = policy.file): string | null {
  if (builtinGatesOn(policy)) return null;
  const names = policy.hooks.map((hook) => (typeof hook === 'string' ? hook : hook.name));
  const checked = names.length > 0 ? `only by the hooks listed (${names.join(', ')})` : 'by no hook at all: every tool call runs without approval';
  return `WARNING: approval.builtin_gates is off in ${source}: the built-in approval gate and destructive-command guard do not run; tool calls are checked ${checked}`;
}

/**
 * Builds the hook registry a policy asks for. The approval gate and the destructive-command
 * guard come first, in that order, whatever `hooks` says (a user's hook can then add a deny
 * or a pause, never turn theirs into an allow: the registry lets a deny win). Then each entry
 * of `hooks` in loop.yaml order: built-ins by name (each once; naming a gate that already
 * runs is accepted and changes nothing), command hooks on their topic. Only
 * `approval.builtin_gates: off` leaves the gates out, and then they run only where `hooks`
 * names them. Order of registration is firing order. Command hooks run in the folder of the
 * policy's file (the current folder for a policy object).
 */
export function hooksFor(policy: EnginePolicy, options: { runDir: string; workspace: string; redact?: Redactor }): HookRegistry {
  const registry = new HookRegistry(policy.hook_timeout * 1000);
  const registered = new Set<string>();
  const builtin = (name: 'approval-gate' | 'destructive-deny' | 'trace-writer') => {
    if (registered.has(name)) return;
    registered.add(name);
    if (name === 'approval-gate') approvalGate(registry, policy);
    else if (name === 'destructive-deny') destructiveDeny(registry, options.workspace);
    else traceWriter(registry, options.runDir, options.redact);
  };
  if (builtinGatesOn(policy)) BUILTIN_GATES.forEach(builtin);
  for (const entry of policy.hooks) {
    if (typeof entry === 'string') builtin(entry);
    else commandHook(registry, entry, { cwd: policy.file ? path.dirname(policy.file) : process.cwd(), workspace: options.workspace, timeoutSeconds: policy.hook_timeout });
  }
  return registry;
}
