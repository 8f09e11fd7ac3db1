import { HookRegistry } from '../engine/hooks.js';
import type { LoopPolicy } from '../engine/policy.js';
import type { Redactor } from '../engine/redact.js';
import path from 'node:path';
import { approvalGate } from './approval-gate.js';
import { commandHook } from './command-hook.js';
import { destructiveDeny } from './destructive-deny.js';
import { traceWriter } from './trace-writer.js';

export { approvalGate } from './approval-gate.js';
export { commandHook, HookCommandError, parseHookAnswer } from './command-hook.js';
export { traceWriter } from './trace-writer.js';
export { destructiveDeny, DESTRUCTIVE_RULES } from './destructive-deny.js';

/**
 * Builds the hook registry a policy asks for: each entry of `hooks` in loop.yaml order,
 * built-ins by name, command hooks on their topic. Order of registration is firing order.
 */
export function hooksFor(policy: LoopPolicy, options: { runDir: string; workspace: string; redact?: Redactor }): HookRegistry {
  const registry = new HookRegistry(policy.hook_timeout * 1000);
  for (const entry of policy.hooks) {
    if (entry === 'approval-gate') approvalGate(registry, policy);
    else if (entry === 'destructive-deny') destructiveDeny(registry);
    else if (entry === 'trace-writer') traceWriter(registry, options.runDir, options.redact);
    else commandHook(registry, entry, { cwd: path.dirname(policy.file), workspace: options.workspace, timeoutSeconds: policy.hook_timeout });
  }
  return registry;
}
