import path from 'node:path';
import { ScriptedAgent } from './engine/agents/scripted.js';
import type { Agent } from './engine/agents/agent.js';
import { newGoal } from './engine/goal.js';
import { EventLog } from './engine/log.js';
import type { LoopPolicy } from './engine/policy.js';
import { Session } from './engine/session.js';
import type { Goal } from './engine/types.js';
import { prepareWorkspace } from './engine/workspace.js';
import { hooksFor } from './hooks/index.js';

/** A session wired to its log and workspace, ready to `run(goal)`. */
export interface PreparedRun {
  session: Session;
  goal: Goal;
  log: EventLog;
  /** `.loopdeck/runs/<session>/` under the directory loopdeck was started in. */
  runDir: string;
  workspace: string;
}

/** A session id from the clock and a few random letters: `20261129-203312-k3f9`. */
export function newSessionId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${Math.random().toString(36).slice(2, 6)}`;
}

/** Builds the agent a policy names. @throws ConfigErrors for an unreadable transcript */
export function agentFor(policy: LoopPolicy): Agent {
  return ScriptedAgent.fromFile(policy.agent.script);
}

/**
 * Prepares a run of `policy`: the workspace (a temporary copy when asked), the agent,
 * and the append-only log at `<cwd>/.loopdeck/runs/<id>/events.jsonl`.
 * @throws ConfigErrors when the workspace or the agent's transcript is invalid
 */
export async function prepareRun(policy: LoopPolicy, options: { cwd: string; id?: string; clock?: () => number }): Promise<PreparedRun> {
  const agent = agentFor(policy);
  const workspace = await prepareWorkspace(policy.workspace, policy.file);
  const id = options.id ?? newSessionId();
  const runDir = path.join(options.cwd, '.loopdeck', 'runs', id);
  const log = new EventLog(path.join(runDir, 'events.jsonl'));
  const session = new Session({
    id,
    agent,
    policy,
    workspace,
    clock: options.clock,
    hooks: hooksFor(policy, { runDir, workspace }),
    sinks: [(event) => log.append(event)],
    sync: () => log.sync(),
  });
  const goal = newGoal(policy.goal.objective, policy.goal.success_criteria, policy.goal.constraints);
  return { session, goal, log, runDir, workspace };
}
