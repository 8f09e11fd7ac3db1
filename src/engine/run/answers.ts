import { offeredRules } from '../approval/always-allow.js';
import { ResumeError } from '../errors.js';
import type { LoopYield, PauseAnswer, ResumePayload, ToolAnswer } from './types.js';

function isToolAnswer(p: unknown): p is ToolAnswer {
  const v = p as Partial<ToolAnswer> | undefined;
  const always = (v as { always?: unknown } | undefined)?.always;
  return (
    !!v &&
    (v.decision === 'approve' || v.decision === 'deny') &&
    (v.note === undefined || typeof v.note === 'string') &&
    (v.by === undefined || v.by === 'operator' || v.by === 'policy') &&
    (always === undefined || (v.decision === 'approve' && typeof always === 'string' && always.length > 0))
  );
}

function isPauseAnswer(p: unknown): p is PauseAnswer {
  const v = p as Partial<PauseAnswer> | undefined;
  return !!v && (v.action === 'continue' || v.action === 'stop') && (v.note === undefined || typeof v.note === 'string');
}

/**
 * Checks an answer against the yield it answers, before the run sees it, so that a bad
 * payload has no side effect. "Always allow" never widens: only a rule the approval prompt
 * offers for this call is accepted.
 * @throws ResumeError naming the shape expected and the payload given
 */
export function checkAnswer(pending: LoopYield | null, payload: ResumePayload | undefined): void {
  if (pending?.kind === 'tool') {
    if (!isToolAnswer(payload)) {
      throw new ResumeError(`a tool yield needs { decision: "approve" | "deny", note?, by?: "operator" | "policy" }, got ${JSON.stringify(payload)}`);
    }
    const always = payload.decision === 'approve' ? payload.always : undefined;
    const offered = offeredRules(pending.call);
    if (always !== undefined && !offered.includes(always)) {
      throw new ResumeError(`"always" must be a rule offered for this call (${offered.map((r) => JSON.stringify(r)).join(', ') || 'none'}), got ${JSON.stringify(always)}`);
    }
  }
  if (pending?.kind === 'pause' && !isPauseAnswer(payload)) {
    throw new ResumeError(`a pause yield needs { action: "continue" | "stop", note? }, got ${JSON.stringify(payload)}`);
  }
}
