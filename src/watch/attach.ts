/**
 * `loopdeck attach <run dir>`: the console over a loopdeck run started headless elsewhere,
 * read-only. Its `events.jsonl` is followed as the run appends to it; each complete line is
 * one event, folded as a replay folds it. A line that is not an event is left out with a
 * notice; a torn last line waits for its newline.
 *
 * Prompts: the fold shows the run's pending approval or pause in the prompt panel (the log
 * holds the event that raised it). With `answer` (a run started `--approve attached`, see
 * attach-answer.ts) the console's keys answer it and the run's reply is said on the notice
 * line; without it the panel shows the prompt and the run answers by its own policy.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { LoopEvent } from '../engine/events.js';
import { isEnvelope } from '../engine/log.js';
import type { ResumePayload } from '../engine/session.js';
import type { FollowSource, NoticeSink } from './console.js';
import { FileTail, TAIL_POLL_MS, type TailItem } from './tail.js';

/** The log file of a run, in its run directory. */
export const RUN_LOG = 'events.jsonl';

/** Longest excerpt of a bad line quoted in a notice. */
const EXCERPT = 120;

/** The log a `attach` argument names: a run directory, or a log file itself (its events.jsonl, or a copy by any name). */
export function runLogOf(target: string): string {
  if (path.basename(target) === RUN_LOG) return target;
  let file = false;
  try {
    file = statSync(target).isFile();
  } catch {
    // Not there (yet): taken as a run directory whose log is still to come.
  }
  return file ? target : path.join(target, RUN_LOG);
}

/**
 * Turns followed log lines into events: `event` for each one, `notice` for a line that is
 * not an event (not JSON, no envelope, a `seq` that does not follow) and for the tail's own
 * notices (truncated, replaced).
 */
export class RunLogReader {
  private line = 0;
  private lastSeq = -1;
  private rewritten = false;

  constructor(
    private readonly file: string,
    private readonly event: (event: LoopEvent) => void,
    private readonly notice: (text: string) => void,
  ) {}

  take(items: readonly TailItem[]): void {
    for (const item of items) {
      if (this.rewritten) return;
      if (item.kind === 'notice') {
        // A run's log is only appended to: one cut short or replaced is another run's now.
        this.rewritten = item.cause === 'truncated' || item.cause === 'replaced';
        this.notice(this.rewritten ? `${item.text}; a run's log is only ever appended to, so this is no longer the run shown: attach again to follow it` : item.text);
        continue;
      }
      this.line += 1;
      this.read(item.text);
    }
  }

  private read(text: string): void {
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.notice(`${this.file}:${this.line}: not JSON, left out: ${text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text}`);
      return;
    }
    if (!isEnvelope(value)) {
      this.notice(`${this.file}:${this.line}: not a loopdeck event, left out`);
      return;
    }
    if (value.seq <= this.lastSeq) {
      this.notice(`${this.file}:${this.line}: event ${value.seq} comes after ${this.lastSeq}; left out`);
      return;
    }
    this.lastSeq = value.seq;
    this.event(value);
  }
}

/** What attach is given. */
export interface AttachOptions {
  /** The run directory (or its events.jsonl). */
  target: string;
  pollMs?: number;
  /**
   * Answers the run's pending prompt, named by the `seq` of the event that raised it; the
   * run's reply (when it resolves to one) is said on the notice line.
   * Absent: prompts are shown, the run answers them by its own policy.
   */
  answer?: (payload: ResumePayload, pendingSeq: number) => void | Promise<{ ok: boolean; reason: string }>;
  /** Why the keys are read-only, said when the console opens (absent: the run takes no attached answers). */
  readOnlyWhy?: string;
}

/**
 * What follows an alert in an attached run: the run acts on it itself, by its own policy
 * (the console only rang the bell). The event's `action` says what the run does when it
 * carries one (a stagnation, checkpoints that measured nothing); a repetition or a budget
 * limit reached is acted on by the run's `on_detect` or budget settings and `--on-pause`.
 */
export function attachedAlertNote(event: LoopEvent): string {
  const action = 'action' in event.data ? event.data.action : null;
  switch (action) {
    case 'pause':
      return 'the run pauses on it, and answers the pause by its own --on-pause';
    case 'stop':
      return 'the run stops on it';
    case 'alert':
      return 'the run goes on: its policy only alerts';
    default:
      return 'the run acts on it by its own policy, not this console';
  }
}

/** Said when the console opens on a run whose prompts its keys answer. */
export const ATTACHED_ANSWERS = "attached: your keys answer this run's prompts (y/n/d, a/A); pausing, stopping or changing the run stays with it";

/** A {@link FollowSource} over a run's log. */
export function attachSource(options: AttachOptions): FollowSource & { file: string; exists: () => boolean } {
  const file = runLogOf(options.target);
  const answer = options.answer;
  // Where the run's replies are said: the notice line, once the console has started.
  let say: NoticeSink = () => undefined;
  return {
    file,
    exists: () => existsSync(file),
    readOnly: answer
      ? "attached: your keys answer this run's prompts, but cannot pause, stop or change the run"
      : 'attached read-only: this console cannot pause, stop or answer the run (it answers its prompts by its own policy)',
    alertNote: attachedAlertNote,
    ...(answer
      ? {
          answer: (payload: ResumePayload, seq: number) => {
            const replied = answer(payload, seq);
            if (!replied) return;
            void replied.then((reply) => (reply.ok ? say(`the run took the answer: ${reply.reason}`, 'success') : say(`the run refused the answer: ${reply.reason}`, 'warning')));
          },
        }
      : {}),
    start(push, notice) {
      say = notice;
      // How the console stands towards the run's prompts: information, not the outcome of anything.
      notice(answer ? ATTACHED_ANSWERS : `attached read-only${options.readOnlyWhy ? `: ${options.readOnlyWhy}` : ''}`, 'info');
      const reader = new RunLogReader(file, push, notice);
      const tail = new FileTail(file, { pollMs: options.pollMs ?? TAIL_POLL_MS, onItems: (items) => reader.take(items) });
      tail.start();
      return () => tail.stop();
    },
  };
}
