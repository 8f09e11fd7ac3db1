/**
 * `loopdeck watch`: a transcript followed as another program writes it, as a source for
 * the console or for headless alert lines. Wires the tail, the transcript feed, the
 * checkpoints and one event sink.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { LoopEvent } from '../engine/events.js';
import { checkpointSettingsOf, WatchCheckpoints } from './checkpoints.js';
import { EventSink } from './events.js';
import { FileTail, TAIL_POLL_MS } from './tail.js';
import { TranscriptFeed, type WatchSettings } from './transcript-feed.js';
import type { LoopPolicy } from '../engine/policy.js';
import { DEFAULT_REPETITION_OPTIONS } from '../engine/repetition.js';
import type { FollowSource } from './console.js';

/** What a watch is given. */
export interface WatchOptions {
  file: string;
  /**
   * The loop.yaml of `--config`, whose budget, repetition, observers and progress rules
   * apply; `null`: {@link NO_CONFIG_SETTINGS} (no budget limits, no checkpoints).
   */
  policy: LoopPolicy | null;
  /** The watched agent's working copy, where the observers run; `null`: no checkpoints. */
  workspace: string | null;
  /** Milliseconds between polls of the file. */
  pollMs?: number;
  /** Epoch milliseconds (injected in tests). */
  now?: () => number;
}

/**
 * What a watch applies without `--config` (docs/watch.md): no budget limits (a limit is
 * the operator's to set for a session loopdeck does not run), the repetition guard's
 * defaults, and no checkpoints (nothing is observed).
 */
export const NO_CONFIG_SETTINGS: Readonly<WatchSettings> = Object.freeze({
  limits: { turns: null, tool_calls: null, wall_clock_seconds: null, tokens: null, cost_usd: null },
  // No limit to warn before.
  warn_fraction: 1,
  repetition: { ...DEFAULT_REPETITION_OPTIONS, exempt_tools: [], ignore_arg_keys: [] },
  checkpoint_every: 0,
  stagnation_threshold: 0,
});

/** The watch settings of a loop.yaml. */
export function watchSettingsOf(policy: LoopPolicy): WatchSettings {
  const { on_detect: _onDetect, ...repetition } = policy.repetition;
  return {
    limits: policy.budget.limits,
    warn_fraction: policy.budget.warn_fraction,
    repetition,
    checkpoint_every: policy.checkpoint.every_iterations,
    stagnation_threshold: policy.stagnation.checkpoints_without_observed_progress,
  };
}

/**
 * A {@link FollowSource} that follows `options.file`: its events, in order, from the
 * file's first line. Notices about the file (truncated, replaced, a malformed line) are
 * events (`agent.notice`), so they stay in the timeline.
 */
export function watchSource(options: WatchOptions): FollowSource & { describe: () => string } {
  const now = options.now ?? Date.now;
  const shown = path.resolve(options.file);
  let feed: TranscriptFeed | null = null;
  return {
    readOnly: 'watching: loopdeck cannot pause, stop or answer a session another program runs (alerts ring the bell)',
    alertNote: () => 'loopdeck cannot pause this session',
    describe: () => `${shown} (${feed?.format === 'text' || !feed ? 'format not recognised yet' : feed.format})`,
    start(push: (event: LoopEvent) => void) {
      const sink = new EventSink(`watch-${randomBytes(4).toString('hex')}`, now, push);
      const { policy, workspace } = options;
      const checkpointSettings = policy && workspace ? checkpointSettingsOf(policy, workspace) : null;
      // Without checkpoints, session.start says none is ever taken (`checkpoint_every: 0`).
      const settings = { ...(policy ? watchSettingsOf(policy) : NO_CONFIG_SETTINGS), ...(checkpointSettings ? {} : { checkpoint_every: 0 }) };
      feed = new TranscriptFeed(sink, settings, now);
      const current = feed;
      const checkpoints = checkpointSettings ? new WatchCheckpoints(checkpointSettings, sink, () => current.lastText) : null;
      if (checkpoints) current.onTurn = (turns) => checkpoints.turn(turns);
      current.begin(shown, workspace);
      const why = checkpoints ? null : noCheckpointsWhy(policy, workspace);
      if (why) sink.emit('agent.notice', { text: `no checkpoints: ${why}` });
      const tail = new FileTail(options.file, { pollMs: options.pollMs ?? TAIL_POLL_MS, onItems: (items) => current.take(items) });
      tail.start();
      return async () => {
        tail.stop();
        await checkpoints?.stop();
      };
    },
  };
}

/**
 * Why a watch takes no checkpoints, said once in its timeline, or `null` when nothing asked
 * for them (neither `--workspace` nor a config that observes): they need both.
 */
function noCheckpointsWhy(policy: LoopPolicy | null, workspace: string | null): string | null {
  if (!policy) return workspace ? 'without --config nothing is observed (a loop.yaml with observe and progress.observed is needed)' : null;
  const observes = policy.observe.length > 0 && policy.progress.observed.length > 0;
  if (!observes) return workspace ? `${policy.file} observes nothing (observe and progress.observed are needed)` : null;
  return workspace ? null : `${policy.file} observes, but no --workspace says where its observers run`;
}
