import type { HookRegistry } from '../engine/hooks.js';
import { decideApproval } from './approval-rules.js';

/**
 * Shell commands that destroy work or history. Matched with the approval rules' parser
 * against every part of a command (inside `&&`, `;`, `|`, `$(...)`, `sh -c '...'`), by
 * literal word prefix: a safety net, not a sandbox (`find -delete` or a script file still
 * passes; the approval gate asks about everything not allowed).
 */
export const DESTRUCTIVE_RULES = [
  'shell: rm -rf',
  'shell: rm -fr',
  'shell: rm -r -f',
  'shell: git push --force',
  'shell: git push -f',
  'shell: git reset --hard',
  'shell: git clean -fd',
  'shell: git clean -fdx',
  'shell: git clean -xfd',
  'shell: git stash drop',
  'shell: git stash clear',
  'shell: git checkout --',
  'shell: mkfs',
  'shell: dd',
  'shell: shutdown',
  'shell: reboot',
] as const;

/** The destructive-command deny: in `before_tool_call`, denies a shell call matching {@link DESTRUCTIVE_RULES}. */
export function destructiveDeny(registry: HookRegistry): void {
  const rules = { default: 'allow' as const, allow: [], deny: [...DESTRUCTIVE_RULES] };
  registry.on('before_tool_call', 'destructive-deny', async ({ call }) => {
    if (call.name !== 'shell') return undefined;
    const verdict = await decideApproval(call, rules);
    return verdict.decision === 'deny' ? { type: 'deny', reason: `destructive command: ${verdict.reason}` } : undefined;
  });
}
