/**
 * The three loop patterns and how `pattern: auto` picks one.
 *
 * - ReAct (Yao et al., 2022): reason and act step by step until the verifier passes.
 * - Plan-and-Execute (Wang et al., 2023, "Plan-and-Solve"; LangChain's plan-and-execute
 *   agents): draft a plan, execute its steps, replan when a step fails.
 * - Reflexion (Shinn et al., 2023): act, evaluate with the verifier, write a reflection and
 *   retry with the lessons in context.
 */
export type Pattern = 'react' | 'plan-and-execute' | 'reflexion';

/** Traits of the task, from `task` in loop.yaml. */
export interface TaskTraits {
  known_procedure: boolean;
  exploratory: boolean;
  quality_critical: boolean;
  complex: boolean;
}

/**
 * Picks a pattern for `pattern: auto`, first match wins: a known procedure →
 * Plan-and-Execute; exploratory → ReAct; quality-critical → Reflexion; complex →
 * Plan-and-Execute; otherwise ReAct. Returns the choice and why.
 */
export function selectPattern(traits: TaskTraits): { pattern: Pattern; why: string } {
  if (traits.known_procedure) return { pattern: 'plan-and-execute', why: 'auto: the task follows a known procedure' };
  if (traits.exploratory) return { pattern: 'react', why: 'auto: the task is exploratory' };
  if (traits.quality_critical) return { pattern: 'reflexion', why: 'auto: the task is quality-critical' };
  if (traits.complex) return { pattern: 'plan-and-execute', why: 'auto: the task is complex' };
  return { pattern: 'react', why: 'auto: no trait set; ReAct is the default' };
}

/** Resolves `pattern` from loop.yaml (possibly `auto`) to a concrete pattern and a reason. */
export function resolvePattern(configured: Pattern | 'auto', traits: TaskTraits): { pattern: Pattern; why: string } {
  return configured === 'auto' ? selectPattern(traits) : { pattern: configured, why: 'set in loop.yaml' };
}

/**
 * Why `agent` cannot follow `pattern`, or `null` when it can: Plan-and-Execute asks the agent
 * for a plan, Reflexion for a reflection after a failed attempt, and only agents with
 * `plan` / `reflect` answer them (a scripted transcript does; an OpenAI-compatible model and a
 * command agent do not). The engine refuses such a run with this text, and `validate` and
 * `run` say it before a run starts (src/preflight.ts).
 */
export function patternMismatch(agent: { name: string; plan?: unknown; reflect?: unknown }, pattern: Pattern): string | null {
  if (pattern === 'plan-and-execute' && !agent.plan) return `${agent.name} cannot plan; Plan-and-Execute needs an agent that plans`;
  if (pattern === 'reflexion' && !agent.reflect) return `${agent.name} cannot reflect; Reflexion needs an agent that reflects`;
  return null;
}
