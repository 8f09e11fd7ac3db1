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
import type { FollowSource } from './console.js';

/** What a watch is given. */
export interface WatchOptions {
  file: string;
  /** The loop.yaml whose budget, repetition, observers and progress rules apply. */
  policy: LoopPolicy;
  /** The watched agent's working copy, where the observers run; `null`: no checkpoints. */
  workspace: string | null;
  /** Milliseconds between polls of the file. */
  pollMs?: number;
  /** Epoch milliseconds (injected in tests). */
  now?: () => number;
}

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
    describe: () => `${shown} (${feed?.format === 'text' || !feed ? 'format not recognised yet' : feed.format})`,
    start(push: (event: LoopEvent) => void) {
      const sink = new EventSink(`watch-${randomBytes(4).toString('hex')}`, now, push);
      feed = new TranscriptFeed(sink, watchSettingsOf(options.policy), now);
      const current = feed;
      const checkpointSettings = options.workspace ? checkpointSettingsOf(options.policy, options.workspace) : null;
      const checkpoints = checkpointSettings ? new WatchCheckpoints(checkpointSettings, sink, () => current.lastText) : null;
      if (checkpoints) current.onTurn = (turns) => checkpoints.turn(turns);
      current.begin(shown, options.workspace);
      if (options.workspace && !checkpoints) {
        sink.emit('agent.notice', { text: `no checkpoints: ${options.policy.file} observes nothing (observe and progress.observed are needed)` });
      }
      const tail = new FileTail(options.file, { pollMs: options.pollMs ?? TAIL_POLL_MS, onItems: (items) => current.take(items) });
      tail.start();
      return async () => {
        tail.stop();
        await checkpoints?.stop();
      };
    },
  };
}
