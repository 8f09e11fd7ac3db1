import type { HookRegistry } from '../engine/hooks.js';
import type { LoopPolicy } from '../engine/policy.js';
import { decideApproval } from './approval-rules.js';

/**
 * The approval gate: in `before_tool_call`, the approval rules of loop.yaml decide each
 * call. `allow` lets it run (decided by policy), `deny` cancels it, and `ask` pauses for
 * the operator with the reason (which rule, or why no rule could allow it). Rules the
 * operator granted during the run ("always allow") count as allow rules.
 */
export function approvalGate(registry: HookRegistry, policy: LoopPolicy): void {
  const rules = { default: policy.approval.default, allow: policy.approval.allow, deny: policy.approval.deny };
  registry.on('before_tool_call', 'approval-gate', async ({ call, granted }) => {
    const verdict = await decideApproval(call, rules, [...granted]);
    if (verdict.decision === 'allow') return { type: 'allow' };
    if (verdict.decision === 'deny') return { type: 'deny', reason: verdict.reason };
    return { type: 'pause', prompt: verdict.reason };
  });
}
