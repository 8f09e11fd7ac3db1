/**
 * Approvals of a CLI agent by keypress, wired for one run (docs/design.md, "Approvals of CLI
 * agents"): the run's socket, the inbox the engine takes its requests from, and the per-run
 * hook configuration the command agent is started with.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bridgeCliOf, bridgeHookCommand, writeHookConfig, type HookLaunch } from './engine/bridge/hook-config.js';
import { ApprovalInbox } from './engine/bridge/inbox.js';
import { startBridgeServer, type AnswerHandler } from './engine/bridge/server.js';
import { ConfigError, ConfigErrors } from './engine/errors.js';
import type { LoopPolicy } from './engine/policy.js';
import { positionInFile } from './engine/yaml-file.js';

/**
 * A run's socket: the inbox for the session and the hook for the agent when the agent's
 * approvals are bridged (else `null`), and the way to close it.
 */
export interface RunBridge {
  inbox: ApprovalInbox | null;
  hook: HookLaunch | null;
  close(): Promise<void>;
}

/** Seconds the bridge waits for a decision when `approval.timeout` is unlimited. */
const UNLIMITED_WAIT_SECONDS = 24 * 3600;
/** Seconds the CLI lets its hook run past the bridge's own wait: the bridge always answers first. */
const HOOK_MARGIN_SECONDS = 30;

/** The built CLI script that runs `loopdeck bridge` (beside this module in dist/, else dist/ from src/). */
function cliScript(): string {
  const beside = fileURLToPath(new URL('./cli.js', import.meta.url));
  return existsSync(beside) ? beside : fileURLToPath(new URL('../dist/cli.js', import.meta.url));
}

/**
 * Starts the socket of a run when its agent is a command whose approvals go through
 * loopdeck (`agent.approvals`, `auto` when the CLI is known), or when `answers` takes an
 * attached console's answers (`--approve attached`); else `null`. When the CLI takes no
 * per-run hook without changing the user's settings, `notice` says so and the agent runs
 * parse-only.
 * @throws ConfigErrors for `approvals: bridge` with no known CLI; Error when the socket cannot be made
 */
export function startRunBridge(policy: LoopPolicy, run: { id: string; runDir: string }, notice: (text: string) => void, answers?: AnswerHandler): RunBridge | null {
  const cli = bridgedCli(policy);
  if (cli === null && !answers) return null;
  let inbox: ApprovalInbox | null = cli === null ? null : new ApprovalInbox();
  const server = startBridgeServer({
    run: run.id,
    runDir: run.runDir,
    handle: (request) => (inbox ? inbox.submit(request) : Promise.resolve({ decision: 'deny' as const, reason: 'this run bridges no agent approvals' })),
    ...(answers ? { answers } : {}),
    onError: notice,
  });
  const close = () => server.close();
  if (cli === null) return { inbox: null, hook: null, close };
  const wait = policy.approval.timeout === null ? UNLIMITED_WAIT_SECONDS : Math.min(policy.approval.timeout + 10, UNLIMITED_WAIT_SECONDS);
  const command = bridgeHookCommand(cliScript(), cli, run.id, server.socket, wait);
  const hook = writeHookConfig(cli, run.runDir, command, wait + HOOK_MARGIN_SECONDS);
  if ('notice' in hook) {
    notice(hook.notice);
    inbox = null;
    if (answers) return { inbox: null, hook: null, close };
    void server.close();
    return null;
  }
  return { inbox, hook, close };
}

/**
 * The error of a policy whose approvals cannot be bridged: `agent.approvals: bridge` for a
 * command whose CLI is not known (neither from `agent.output` nor from its program name).
 * `null` when they can, or are not asked to be. `run` (through {@link startRunBridge}) and
 * `validate` (through src/preflight.ts) refuse the policy with this one error.
 */
export function bridgeConfigError(policy: LoopPolicy): ConfigError | null {
  const agent = policy.agent;
  if (agent.kind !== 'command' || agent.approvals !== 'bridge' || bridgeCliOf(agent) !== null) return null;
  return new ConfigError(
    policy.file,
    'agent.approvals',
    'bridge needs to know the CLI: set agent.output to claude-stream-json, codex-json or gemini-stream-json, or start the command with claude, codex or gemini',
    positionInFile(policy.file, ['agent', 'approvals']),
  );
}

/**
 * The CLI whose approvals a policy bridges, or `null`.
 * @throws ConfigErrors for `approvals: bridge` with no known CLI ({@link bridgeConfigError})
 */
function bridgedCli(policy: LoopPolicy): ReturnType<typeof bridgeCliOf> {
  const error = bridgeConfigError(policy);
  if (error) throw new ConfigErrors([error]);
  const agent = policy.agent;
  if (agent.kind !== 'command' || agent.approvals === 'parse-only') return null;
  return bridgeCliOf(agent);
}
