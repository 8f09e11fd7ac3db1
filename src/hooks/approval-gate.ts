import type { HookRegistry } from '../engine/hooks.js';
import type { LoopPolicy } from '../engine/policy.js';
import { ApprovalRuleSet } from '../engine/approval/approval-rules.js';
import { sensitivePathReason } from '../engine/approval/sensitive-paths.js';

/**
 * The approval gate: in `before_tool_call`, the approval rules of loop.yaml decide each
 * call. `allow` lets it run (decided by policy), `deny` cancels it, and `ask` pauses for
 * the operator with the reason (which rule, or why no rule could allow it). Rules the
 * operator granted during the run ("always allow") count as allow rules. A write to a file
 * git reads as configuration ({@link sensitivePathReason}) is asked about even when a rule
 * allows it, with that reason first in the prompt; a deny still wins. The rules are parsed
 * once, here, when the policy's hooks are built.
 */
export function approvalGate(registry: HookRegistry, policy: Pick<LoopPolicy, 'approval'>): void {
  const rules = new ApprovalRuleSet(policy.approval);
  registry.on('before_tool_call', 'approval-gate', ({ call, granted }) => {
    const verdict = rules.decide(call, granted);
    if (verdict.decision === 'deny') return { type: 'deny', reason: verdict.reason };
    const sensitive = sensitivePathReason(call);
    if (sensitive) return { type: 'pause', prompt: `${sensitive} (always asked; the rules alone say: ${verdict.reason})` };
    if (verdict.decision === 'allow') return { type: 'allow' };
    return { type: 'pause', prompt: verdict.reason };
  });
}
