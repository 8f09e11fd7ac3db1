import type { HookRegistry } from '../engine/hooks.js';
import { destructiveCommand, destructiveReason } from '../engine/approval/destructive-commands.js';

/**
 * The destructive-command deny: in `before_tool_call`, denies a shell call that holds a
 * command destroying work or history, recognised by its parsed options in every spelling
 * and wherever it stands in the command (destructive-commands.ts: `rm -r -f`, `git clean`,
 * `git reset --hard`, `git checkout .`, `git restore .`, `git push --force`, ...), and one
 * it cannot read statically (a dynamic option word of such a program, a dynamic program, a
 * script nested too deep or fed through a pipe): it fails closed. `workspace` (the shell
 * tool's working directory) lets `git checkout <name>` count as destructive when `<name>`
 * is a path there. A safety net, not a sandbox.
 */
export function destructiveDeny(registry: HookRegistry, workspace?: string): void {
  registry.on('before_tool_call', 'destructive-deny', ({ call }) => {
    if (call.name !== 'shell' || typeof call.args.command !== 'string') return undefined;
    const found = destructiveCommand(call.args.command, { workspace });
    return found ? { type: 'deny', reason: destructiveReason(found) } : undefined;
  });
}
