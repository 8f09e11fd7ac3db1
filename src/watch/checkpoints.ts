/**
 * Checkpoints of a watched session (docs/design.md, "Watching a session"): every
 * `checkpoint.every_iterations` assistant turns of the watched agent, loopdeck's observers
 * (`observe` of the loop.yaml) run in the workspace given, the evaluator compares with the
 * last checkpoint as in a run of loopdeck's own, and the agent's latest message is shown
 * beside it: what was measured next to what the agent says. Stagnation and checkpoints that
 * measured nothing raise the same events a run raises, as alerts only (`action: 'alert'`):
 * the watched program cannot be paused.
 */
import { evaluateCheckpoint, INITIAL_EVALUATOR, type EvaluatorState, type ProgressPolicy } from '../engine/checkpoint.js';
import { afterUnknown, unmeasuredSignals } from '../engine/checkpoint-unknown.js';
import { describeError } from '../engine/errors.js';
import { observe } from '../engine/observe.js';
import type { LoopPolicy } from '../engine/policy.js';
import type { EventSink } from './events.js';

/** Longest excerpt of the agent's message shown beside a checkpoint. */
const SAID_EXCERPT = 200;

/** What a checkpoint needs: the observers, the progress rules, the workspace. */
export interface CheckpointSettings {
  observe: LoopPolicy['observe'];
  progress: ProgressPolicy;
  /** Take one every this many assistant turns. */
  every: number;
  /** The folder the observers run in (the watched agent's working copy). */
  workspace: string;
}

/** The checkpoint settings of a loop.yaml for `workspace`, or `null` when it observes nothing. */
export function checkpointSettingsOf(policy: LoopPolicy, workspace: string): CheckpointSettings | null {
  if (policy.observe.length === 0 || policy.progress.observed.length === 0) return null;
  return {
    observe: policy.observe,
    progress: { observed: policy.progress.observed, reported: policy.progress.reported.track, threshold: policy.stagnation.checkpoints_without_observed_progress },
    every: policy.checkpoint.every_iterations,
    workspace,
  };
}

/**
 * Takes checkpoints as turns arrive, one at a time: turns that come while one runs are
 * covered by the next (one more is taken when it ends, never a queue).
 */
export class WatchCheckpoints {
  private evaluator: EvaluatorState = INITIAL_EVALUATOR;
  private running: Promise<void> | null = null;
  private again = false;
  private lastTurn = 0;
  private stopped = false;

  constructor(
    private readonly settings: CheckpointSettings,
    private readonly sink: EventSink,
    private readonly said: () => string,
  ) {}

  /** Called with the turn count as it grows; takes a checkpoint when one is due. */
  turn(turns: number): void {
    if (this.stopped || Math.floor(turns / this.settings.every) <= Math.floor(this.lastTurn / this.settings.every)) return;
    this.lastTurn = turns;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.take(turns).finally(() => {
      this.running = null;
      if (this.again && !this.stopped) {
        this.again = false;
        this.running = this.take(this.lastTurn).finally(() => (this.running = null));
      }
    });
  }

  /** Takes no more checkpoints; waits for one that runs. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async take(iteration: number): Promise<void> {
    const { settings } = this;
    let observation;
    try {
      observation = await observe(settings.observe, settings.workspace);
    } catch (error) {
      this.sink.emit('agent.notice', { text: `checkpoint at turn ${iteration}: the observers could not run in ${settings.workspace} (${describeError(error)})` });
      return;
    }
    if (this.stopped) return;
    const { record, state } = evaluateCheckpoint(
      this.evaluator,
      {
        iteration,
        observed: observation.metrics,
        tests: observation.tests,
        ...(observation.skipped.length > 0 ? { skipped_tests: observation.skipped } : {}),
        reported: { new_evidence: [], eliminated_hypotheses: [], remaining_hypotheses: [] },
        ...(observation.errors.length > 0 ? { observer_errors: observation.errors } : {}),
        unmeasured: unmeasuredSignals(settings.progress.observed.map((s) => s.signal), settings.observe, observation),
      },
      settings.progress,
    );
    this.evaluator = state;
    this.sink.emit('checkpoint.recorded', { checkpoint: record });
    const text = this.said().trim().replace(/\s+/g, ' ');
    const said = text === '' ? 'the agent has said nothing yet' : `the agent says: ${text.length > SAID_EXCERPT ? `${text.slice(0, SAID_EXCERPT)}…` : text}`;
    const moved = record.signals.map((s) => `${s.signal.replace(/^observed\./, '')} ${s.before ?? '—'} → ${s.after ?? 'missing'}`).join(', ');
    this.sink.emit('agent.notice', { text: `checkpoint at turn ${iteration}: ${record.status}${moved ? ` (${moved})` : ''}; ${said}` });
    if (record.status === 'UNKNOWN') {
      if (afterUnknown(record, 'alert')) this.sink.emit('checkpoint.unknown', { iteration, in_row: record.unknown_in_row ?? 1, why: record.unknown_why ?? '', action: 'alert' });
      return;
    }
    if (record.stagnation_detected) this.sink.emit('stagnation.detected', { counter: record.counter, threshold: record.threshold, iteration, action: 'alert' });
  }
}
