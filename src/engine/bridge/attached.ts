/**
 * Answers of an attached console for a headless run started `--approve attached`
 * (docs/design.md, "Attached answers"): at each tool approval the run waits up to
 * `approval.timeout` for `loopdeck attach` to answer over the run's socket; with no answer
 * in that time it answers by its fallback (deny: a call nobody approved is never run).
 * An answer counts only for the prompt pending now, named by the `seq` of the event that
 * raised it; any other is refused. Pauses are answered by the fallback (`--on-pause`) at once.
 */
import type { Answerer } from '../drive.js';
import { formatDuration } from '../duration.js';
import { describeError } from '../errors.js';
import { checkAnswer } from '../run/answers.js';
import type { LoopYield, ResumePayload } from '../run/types.js';
import { safeTimeout, type SafeTimer } from '../timer.js';
import type { AnswerMessage } from './protocol.js';

/** Longest note of an attached answer kept, in characters (the rest is cut). */
const MAX_NOTE_CHARS = 4000;

/** What the desk reads of the run: the prompt pending now and the timeout in force. */
export interface AttachedRun {
  /** The `seq` of the event that raised the pending prompt, or `null`. */
  pendingSeq: () => number | null;
  /** `approval.timeout` in seconds, in force now; `null`: wait without limit. */
  timeoutSeconds: () => number | null;
}

interface Waiting {
  seq: number;
  yielded: LoopYield;
  resolve: (payload: ResumePayload) => void;
  timer: SafeTimer | null;
}

/** Takes attached answers from the socket and hands them to the run's driver. */
export class AttachedDesk {
  private waiting: Waiting | null = null;

  /**
   * @param say told one line when a prompt goes to the fallback (for stderr)
   */
  constructor(private readonly say: (text: string) => void = () => undefined) {}

  /**
   * The run's answerer: tool prompts wait for an attached answer up to the timeout, then
   * `fallback` answers with its note prefixed by why; pauses go to `fallback` at once.
   */
  answerer(run: AttachedRun, fallback: Answerer): Answerer {
    return (y) => {
      if (y.kind !== 'tool') return fallback(y);
      const seq = run.pendingSeq();
      if (seq === null) return fallback(y);
      return new Promise<ResumePayload>((resolve) => {
        const timeout = run.timeoutSeconds();
        const waiting: Waiting = { seq, yielded: y, resolve, timer: null };
        if (timeout !== null) {
          waiting.timer = safeTimeout(() => {
            if (this.waiting !== waiting) return;
            this.waiting = null;
            const why = `no attached console answered within ${formatDuration(timeout)}`;
            this.say(`${why}: call ${y.call.id} (${y.call.name}) answered by policy`);
            Promise.resolve(fallback(y)).then(
              (payload) => resolve(withWhy(payload, why)),
              (error: unknown) => resolve({ decision: 'deny', by: 'policy', note: `${why}; the policy could not answer: ${describeError(error)}` }),
            );
          }, timeout * 1000);
        }
        this.waiting = waiting;
      });
    };
  }

  /**
   * The socket's handler of an answer (run id and token already checked): taken when it
   * names the prompt pending now and fits it, else refused with the reason.
   */
  receive(message: AnswerMessage): { ok: boolean; reason: string } {
    const waiting = this.waiting;
    if (!waiting) return { ok: false, reason: `event ${message.seq} is not a prompt this run waits on (it waits on none now)` };
    if (waiting.seq !== message.seq) return { ok: false, reason: `event ${message.seq} is not the prompt pending now (event ${waiting.seq} is)` };
    const payload = payloadOf(message.answer);
    try {
      checkAnswer(waiting.yielded, payload as ResumePayload);
    } catch (error) {
      return { ok: false, reason: describeError(error) };
    }
    this.waiting = null;
    waiting.timer?.cancel();
    waiting.resolve(payload as ResumePayload);
    return { ok: true, reason: `${(payload as { decision?: string }).decision === 'approve' ? 'approved' : 'denied'} call ${waiting.yielded.kind === 'tool' ? waiting.yielded.call.id : ''}` };
  }

  /** Stops waiting: a pending prompt's timer is cancelled (the run is over or quit). */
  dispose(): void {
    this.waiting?.timer?.cancel();
    this.waiting = null;
  }
}

/** The answer's own fields only (a note cut to {@link MAX_NOTE_CHARS}); checked against the prompt afterwards. */
function payloadOf(answer: Record<string, unknown>): unknown {
  const { decision, note, always } = answer;
  return {
    decision,
    ...(note !== undefined ? { note: typeof note === 'string' ? note.slice(0, MAX_NOTE_CHARS) : note } : {}),
    ...(always !== undefined ? { always } : {}),
  };
}

/**
 * The fallback's answer, its note saying first why the fallback answered; a tool answer is
 * the policy's (no person answered it), whatever the fallback said.
 */
function withWhy(payload: ResumePayload, why: string): ResumePayload {
  const note = payload.note ? `${why}; ${payload.note}` : why;
  return 'decision' in payload ? { ...payload, note, by: 'policy' } : { ...payload, note };
}
