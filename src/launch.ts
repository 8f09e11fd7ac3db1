import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InvariantError, LoopdeckError } from './engine/errors.js';
import type { LoopEvent } from './engine/events.js';
import { ScriptedAgent } from './engine/agents/scripted.js';
import type { Agent } from './engine/agents/agent.js';
import { CommandAgent } from './engine/agents/command.js';
import { formatRetry, OpenAIAgent, selectApiKey, type RetryInfo } from './engine/agents/openai.js';
import { newGoal } from './engine/goal.js';
import { EventLog, readLog } from './engine/log.js';
import { anchorProgram, type LoopPolicy } from './engine/policy.js';
import { createRedactor, type Redactor } from './engine/redact.js';
import { declareSecretEnv, envValue } from './engine/secrets.js';
import { parseSavedPolicy, POLICY_FILE, policyDigest, readSavedPolicyText, savedPolicyText } from './engine/saved-policy.js';
import type { RunWait } from './engine/run/wait-guard.js';
import { Session } from './engine/session.js';
import type { Goal } from './engine/types.js';
import { prepareWorkspace } from './engine/workspace.js';
import { PRUNED_FILE, recordOwner } from './runs.js';
import { selfCommand, shortPath } from './continue-command.js';
import { hooksFor } from './hooks/index.js';
import { startRunBridge, type RunBridge } from './bridge-launch.js';
import type { HookLaunch } from './engine/bridge/hook-config.js';
import { assertPreflight } from './preflight.js';
import { newSessionId } from './run-id.js';
import type { AnswerHandler } from './engine/bridge/server.js';

/** A session wired to its log and workspace, ready to `run(goal)`. */
export interface PreparedRun {
  session: Session;
  goal: Goal;
  log: EventLog;
  /** `.loopdeck/runs/<session>/` under the directory loopdeck was started in. */
  runDir: string;
  workspace: string;
  policy: LoopPolicy;
  /** Subscribes to the agent's streamed text (shown live; the turn's response is what is recorded). */
  onAgentText: (listener: (chunk: string) => void) => void;
  /** Subscribes to what the run waits on now (the model, a tool; `null` when the wait is over), for the console. */
  onWait: (listener: (wait: RunWait | null) => void) => void;
  /** Events recorded before this process (crash-resume); empty for a new run. */
  prior: LoopEvent[];
  /** The run's redactor (this process's secrets and those the policy names): apply it to anything printed. */
  redact: Redactor;
  /** Closes what the run holds open beyond its log: the approval socket of a CLI agent (docs/design.md, "Approvals of CLI agents"). */
  dispose: () => Promise<void>;
}

export { newSessionId };

/**
 * Builds the agent a policy names: a scripted transcript, an OpenAI-compatible model, or
 * an external CLI agent run in the workspace (its program, written as a relative path, found
 * from loop.yaml's folder as `validate` finds it: {@link anchorProgram}).
 * @throws ConfigErrors for an unreadable transcript or an `api_key_env` naming an unset
 *   variable; AgentError for the OpenAI API without a key
 */
export function agentFor(policy: LoopPolicy, workspace: string, onNotice?: (text: string) => void, approvalHook?: HookLaunch): Agent {
  const agent = policy.agent;
  switch (agent.kind) {
    case 'scripted':
      return ScriptedAgent.fromFile(agent.script);
    case 'openai': {
      const baseURL = agent.base_url ?? (process.env.OPENAI_BASE_URL || undefined);
      const apiKey = selectApiKey({ ...(baseURL ? { baseURL } : {}), ...(agent.api_key_env ? { apiKeyEnv: agent.api_key_env } : {}), file: policy.file }, envValue);
      return new OpenAIAgent({
        model: agent.model,
        ...(baseURL ? { baseURL } : {}),
        ...(apiKey ? { apiKey } : {}),
        ...(agent.temperature !== undefined ? { temperature: agent.temperature } : {}),
        maxRetries: agent.max_retries,
        limits: { requestMs: agent.request_timeout * 1000, idleMs: agent.stream_idle_timeout * 1000, maxRetryWaitMs: agent.max_retry_wait * 1000 },
        context: { ...(agent.context_tokens !== undefined ? { context_tokens: agent.context_tokens } : {}), compact_at: agent.compact_at, keep_turns: agent.keep_turns },
        ...(agent.max_tokens !== undefined ? { maxTokens: agent.max_tokens } : {}),
        ...(onNotice ? { onRetry: (info: RetryInfo) => onNotice(formatRetry(info)), onNotice } : {}),
      });
    }
    case 'command':
      return new CommandAgent({
        // Run in the workspace; a relative program path is found from loop.yaml's folder, where validate found it.
        command: anchorProgram(agent.command, policy.file ? path.dirname(path.resolve(policy.file)) : process.cwd()),
        name: `command:${agent.command}`,
        prompt: agent.prompt,
        cwd: workspace,
        timeoutSeconds: agent.timeout,
        outputLimit: policy.tools.output_limit_bytes,
        env_passthrough: agent.env_passthrough,
        output: agent.output,
        ...(approvalHook ? { approvalHook } : {}),
        pricing: policy.pricing,
      });
  }
}

export { POLICY_FILE } from './engine/saved-policy.js';

/**
 * Environment variables a policy hands to its agent, whatever their names: `api_key_env`
 * (or `OPENAI_API_KEY`) of an `openai` agent, `env_passthrough` of a `command` agent. Their
 * values are secrets of the run.
 */
export function policySecretEnv(policy: LoopPolicy): string[] {
  const agent = policy.agent;
  if (agent.kind === 'openai') return [agent.api_key_env ?? 'OPENAI_API_KEY'];
  if (agent.kind === 'command') return [...agent.env_passthrough];
  return [];
}

/** Options of a run's wiring beyond its policy. `answers`: an attached console's answers are taken (`--approve attached`). */
interface WireOptions {
  id: string;
  runDir: string;
  workspace: string;
  clock?: () => number;
  prior?: LoopEvent[];
  policyDigest?: string;
  answers?: AnswerHandler;
}

function wire(policy: LoopPolicy, options: WireOptions) {
  // One redactor for every sink of the run: the log, the trace, the failure report, the final line.
  declareSecretEnv(policySecretEnv(policy));
  const redact = createRedactor();
  const log = new EventLog(path.join(options.runDir, 'events.jsonl'));
  const text = new Set<(chunk: string) => void>();
  const waits = new Set<(wait: RunWait | null) => void>();
  // Notices from before the run starts (the bridge's) are said once it has started.
  const early: string[] = [];
  let started = false;
  const notice = (line: string) => (started ? session.notice(line) : early.push(line));
  const bridge: RunBridge | null = startRunBridge(policy, { id: options.id, runDir: options.runDir }, notice, options.answers);
  const hook = bridge?.hook ?? undefined;
  const agent = agentFor(policy, options.workspace, notice, hook);
  const session: Session = new Session({
    id: options.id,
    agent,
    agentFactory: (lap) => (agent instanceof ScriptedAgent ? agent.forLap(lap) : agentFor(policy, options.workspace, notice, hook)),
    ...(bridge?.inbox ? { approvals: bridge.inbox } : {}),
    onAgentText: (chunk) => text.forEach((listener) => listener(chunk)),
    onWait: (wait) => waits.forEach((listener) => listener(wait)),
    runDir: options.runDir,
    policy,
    workspace: options.workspace,
    clock: options.clock,
    // Built for the policy in force, and again when a reload of approval rules or hooks is confirmed.
    hooksFor: (inForce) => hooksFor(inForce, { runDir: options.runDir, workspace: options.workspace, redact }),
    redact,
    sinks: [
      (event) => log.append(event),
      (event) => {
        if (started || (event.type !== 'session.start' && event.type !== 'session.resume')) return;
        started = true;
        queueMicrotask(() => early.splice(0).forEach((line) => session.notice(line)));
      },
    ],
    sync: () => log.sync(),
    ...(options.prior ? { prior: options.prior } : {}),
    ...(options.policyDigest ? { policyDigest: options.policyDigest } : {}),
  });
  return {
    session,
    log,
    redact,
    dispose: async () => bridge?.close(),
    onAgentText: (listener: (chunk: string) => void) => void text.add(listener),
    onWait: (listener: (wait: RunWait | null) => void) => void waits.add(listener),
  };
}

/**
 * Prepares a run of `policy`: the workspace (a temporary copy when asked), the agent,
 * the append-only log at `<cwd>/.loopdeck/runs/<id>/events.jsonl`, and the effective
 * policy beside it (`policy.json`) so the run can be resumed, and this process as the
 * run's holder (`owner.json`, read by `loopdeck runs`).
 * @param options.configShownAs the loop.yaml as the user named it (relative as given), in errors; default `policy.file`
 * @throws ConfigErrors listing every problem `preflightErrors` finds (the workspace, the agent,
 *   the run's folder under `cwd`), checked before a copy is made; LoopdeckError when the run's
 *   folder cannot be written all the same (the copy made for it is removed first)
 */
export async function prepareRun(
  policy: LoopPolicy,
  options: { cwd: string; id?: string; clock?: () => number; answers?: AnswerHandler; configShownAs?: string },
): Promise<PreparedRun> {
  // The run's folder is checked before the copy is made: a copy no run records would never be removed.
  assertPreflight(policy, options.configShownAs, options.cwd);
  const id = options.id ?? newSessionId();
  const workspace = await prepareWorkspace(policy.workspace, policy.file, id);
  const runDir = path.join(options.cwd, '.loopdeck', 'runs', id);
  let saved: string;
  try {
    mkdirSync(runDir, { recursive: true });
    saved = savedPolicyText(policy);
    // The effective loop.yaml as written (resume needs it whole, literal values included):
    // readable by its owner only, like the loop.yaml it copies should be.
    writeFileSync(path.join(runDir, POLICY_FILE), saved, { mode: 0o600 });
    // Who holds the run, for `loopdeck runs` (running, or resumable) and `runs --prune`.
    recordOwner(runDir);
  } catch (error) {
    // The folder changed since the check (or the disk is full): the copy goes, as no run can record it.
    throw runDirFailure(error, runDir, workspace === policy.workspace.path ? null : workspace);
  }
  const { session, log, redact, onAgentText, onWait, dispose } = wire(policy, {
    id,
    runDir,
    workspace,
    policyDigest: policyDigest(saved),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.answers ? { answers: options.answers } : {}),
  });
  const goal = newGoal(policy.goal.objective, policy.goal.success_criteria, policy.goal.constraints, {
    priority: policy.goal.priority,
    sub_goals: policy.goal.sub_goals,
  });
  return { session, goal, log, runDir, workspace, policy, prior: [], onAgentText, onWait, redact, dispose };
}

/**
 * The error of a run whose folder `runDir` could not be written before the run started,
 * after removing `copy` (the workspace copy made for it, `null` when it works in place),
 * which no run records. Says which folder, why and what to do.
 */
function runDirFailure(error: unknown, runDir: string, copy: string | null): LoopdeckError {
  let removed = '';
  if (copy !== null) {
    try {
      rmSync(copy, { recursive: true, force: true });
    } catch (removal) {
      removed = `; the workspace copy ${copy} made for it could not be removed (${(removal as Error).message}): remove it by hand`;
    }
  }
  const why = (error as NodeJS.ErrnoException).code ?? (error as Error).message ?? String(error);
  return new LoopdeckError(
    `cannot start the run: cannot write its folder ${runDir} (${why}); a run's log, policy and reports go under .loopdeck/runs of the folder loopdeck is started in: start it from a folder you can write to, or make that one writable${removed}`,
    { cause: error },
  );
}

/**
 * The command that starts a new run of the loop.yaml the run of `runDir` was started from,
 * as it runs where printed (`npx loopdeck run -c examples/first-loop/loop.yaml`): the path
 * its `policy.json` records (`file`), when that is still a file. Else the same command with
 * `<loop.yaml>` in its place and why: the run's folder does not say where it came from, or
 * that file is gone. `policy.json` is not trusted: only an absolute path that names a file
 * is printed, quoted as a shell word ({@link shortPath}).
 */
export function newRunCommand(runDir: string): string {
  const saved = path.join(runDir, POLICY_FILE);
  const command = `${selfCommand()} run -c`;
  if (!existsSync(saved)) return `${command} <loop.yaml> (${shortPath(saved)} is missing: which loop.yaml the run came from is not known)`;
  let file: unknown;
  try {
    file = (JSON.parse(readSavedPolicyText(saved).text) as { file?: unknown } | null)?.file;
  } catch {
    file = undefined; // unreadable or not JSON: where the run came from is not known
  }
  if (typeof file !== 'string' || !path.isAbsolute(file)) return `${command} <loop.yaml> (${shortPath(saved)} does not say which loop.yaml the run came from)`;
  if (!existsSync(file)) return `${command} <loop.yaml> (the run's loop.yaml ${shortPath(file)} is gone)`;
  if (!isFile(file)) return `${command} <loop.yaml> (the run's loop.yaml ${shortPath(file)} is not a file)`;
  return `${command} ${shortPath(file)}`;
}

/** True when `file` is a regular file (links followed). */
function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** A run read back from its directory, ready to `resume()`. */
export interface ResumableRun extends PreparedRun {
  /** Warnings from reading the log (e.g. a dropped torn final line). */
  warnings: string[];
}

/**
 * Reads a run directory (`events.jsonl` and `policy.json`) and wires a session that
 * continues it in the same workspace. The policy is not taken on trust: its digest must be
 * the one `session.start` recorded (a log from before digests were recorded resumes with a
 * warning), and it is validated through the loop.yaml schema ({@link parseSavedPolicy}).
 * @throws LogError for a log of an unknown schema version; InvariantError for a damaged log
 *   whose lost lines may hide a tool call or a decision (lines and `seq` gap named), when the
 *   directory holds no started run, `policy.json` changed since the run began (both files
 *   named), or the run's workspace is gone (saying so when `loopdeck runs --prune` removed
 *   it); ConfigErrors naming `policy.json` when it is
 *   missing, unreadable or invalid
 */
export function prepareResume(runDir: string, options: { answers?: AnswerHandler } = {}): ResumableRun {
  const logFile = path.join(runDir, 'events.jsonl');
  const { events, warnings, unresumable } = readLog(logFile);
  if (unresumable) {
    const commands = `replay it: ${selfCommand()} replay ${shortPath(runDir)}\nstart a new run: ${newRunCommand(runDir)}`;
    throw new InvariantError(`${unresumable}\n${warnings.map((w) => `  ${w}`).join('\n')}\n${commands}`);
  }
  const start = events[0];
  if (!start || start.type !== 'session.start') {
    throw new InvariantError(`${runDir}: the run never started (its log has no session.start); nothing to resume, start a new one: ${newRunCommand(runDir)}`);
  }
  const saved = readSavedPolicyText(path.join(runDir, POLICY_FILE));
  const recorded = start.data.policy_sha256;
  if (recorded === undefined) {
    warnings.push(`${logFile} records no digest of ${saved.file} (a run begun by an earlier loopdeck): the policy is validated but cannot be checked against the log`);
  } else if (recorded !== saved.digest) {
    throw new InvariantError(
      `${saved.file} was changed after the run began: its sha256 is ${saved.digest}, ${logFile} recorded ${recorded} at session.start; resume will not run a policy other than the one the run began with (start a new run to use another: ${newRunCommand(runDir)})`,
    );
  }
  const policy = parseSavedPolicy(saved.text, saved.file);
  const workspace = start.data.workspace;
  const pruned = path.join(runDir, PRUNED_FILE);
  if (!existsSync(workspace) && existsSync(pruned)) {
    const end = events.findLast((e) => e.type === 'session.complete');
    const over = end?.type === 'session.complete' ? `the run is over (${end.data.reason}) and ` : '';
    const when = (JSON.parse(readFileSync(pruned, 'utf8')) as { pruned_at?: string }).pruned_at ?? 'an unrecorded date';
    throw new InvariantError(`${runDir}: ${over}its workspace copy ${workspace} was removed by loopdeck runs --prune on ${when}; nothing to resume (its log still replays: ${selfCommand()} replay ${shortPath(runDir)})`);
  }
  if (!existsSync(workspace)) {
    throw new InvariantError(`${runDir}: the run's workspace ${workspace} no longer exists (a temporary copy goes when the temp folder is cleaned); nothing to resume, start a new run: ${newRunCommand(runDir)}`);
  }
  recordOwner(runDir);
  const { session, log, redact, onAgentText, onWait, dispose } = wire(policy, { id: start.session, runDir, workspace, prior: events, ...(options.answers ? { answers: options.answers } : {}) });
  return { session, goal: start.data.goal, log, runDir, workspace, policy, warnings, prior: events, onAgentText, onWait, redact, dispose };
}
