import type { HookRegistry } from '../engine/hooks.js';
import type { LoopPolicy } from '../engine/policy.js';

/**
 * The approval gate: in `before_tool_call`, a tool listed in `approval.ask` pauses for the
 * operator (the console's y/n prompt; headless runs answer by policy); any other tool is
 * allowed by policy.
 */
export function approvalGate(registry: HookRegistry, policy: LoopPolicy): void {
  const ask = new Set(policy.approval.ask);
  registry.on('before_tool_call', 'approval-gate', ({ call }) =>
    ask.has(call.name) ? { type: 'pause', prompt: `approval.ask lists ${call.name}` } : { type: 'allow' },
  );
}
