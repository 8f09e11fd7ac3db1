import type { HookRegistry } from '../engine/hooks.js';
import { destructiveCommand } from '../engine/approval/destructive-commands.js';

/**
 * The destructive-command deny: in `before_tool_call`, denies a shell call that holds a
 * command destroying work or history, recognised by its parsed options in every spelling
 * and wherever it stands in the command (destructive-commands.ts: `rm -r -f`, `git clean`,
 * `git reset --hard`, `git checkout .`, `git restore .`, `git push --force`, ...). A safety
 * net, not a sandbox: what it cannot see is asked about by the approval gate.
 */
export function destructiveDeny(registry: HookRegistry): void {
  registry.on('before_tool_call', 'destructive-deny', ({ call }) => {
    if (call.name !== 'shell' || typeof call.args.command !== 'string') return undefined;
    const found = destructiveCommand(call.args.command);
    return found ? { type: 'deny', reason: `destructive command: ${found.command} (${found.effect})` } : undefined;
  });
}
