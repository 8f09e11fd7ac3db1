/**
 * The lap hand-over file (`laps.progress_file`, docs/design.md "Loop patterns", Laps): what the next
 * lap is told about it. Its path always; of its content only a bounded excerpt (head and
 * tail), with its size and sha256, so a large file neither breaks the prompt nor grows
 * every `lap.start` event. The full file stays on disk for the agent to read.
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { describeError } from './errors.js';
import { confine } from './workspace-path.js';
import { progressExcerpt } from './handover.js';

/** Characters of the file's start and of its end put in the prompt. */
export const HANDOVER_HEAD_CHARS = 4000;
export const HANDOVER_TAIL_CHARS = 4000;

/** Bytes hashed at most: past this `sha256` is `null` (a file that large is not a hand-over). */
const MAX_HASHED_BYTES = 256 * 1024 * 1024;

/** What `lap.start` records of the hand-over file. */
export interface Handover {
  /** The path as configured, relative to the workspace. */
  path: string;
  /** `missing`: not there yet; `unreadable`: there but not a readable regular file (see `note`). */
  state: 'present' | 'missing' | 'unreadable';
  /** Size in bytes; `null` unless present. */
  bytes: number | null;
  /** sha256 hex of the whole file; `null` unless present (or past the hashing bound). */
  sha256: string | null;
  /** The whole text when it fits, else its head and tail around a marker. */
  excerpt: string;
  /** True when `excerpt` leaves a middle part out. */
  truncated: boolean;
  note?: string;
}

/** The file's head and tail as text (UTF-8; a cut multi-byte character becomes U+FFFD). */
function excerptOf(head: Buffer, tail: Buffer | null, bytes: number): { excerpt: string; truncated: boolean } {
  if (!tail) return { excerpt: head.toString('utf8'), truncated: false };
  const left = bytes - head.length - tail.length;
  return { excerpt: `${head.toString('utf8')}\n[… ${left} bytes left out: read the file for all of it …]\n${tail.toString('utf8')}`, truncated: true };
}

/**
 * Reads the hand-over file at `relative` in `workspace`: never follows a symlink out of the
 * workspace (`confine`), reads only regular files, and holds at most head + tail in memory
 * (the hash streams). Never throws: a failure is `unreadable` with a note.
 */
export async function readHandover(workspace: string, relative: string): Promise<Handover> {
  const base = { path: relative, bytes: null, sha256: null, excerpt: '', truncated: false };
  let file: string;
  try {
    file = confine('progress_file', workspace, relative);
  } catch (error) {
    return { ...base, state: 'unreadable', note: describeError(error) };
  }
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { ...base, state: 'missing' } : { ...base, state: 'unreadable', note: describeError(error) };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { ...base, state: 'unreadable', note: 'not a regular file' };
    const bytes = stat.size;
    const whole = bytes <= HANDOVER_HEAD_CHARS + HANDOVER_TAIL_CHARS;
    const head = Buffer.alloc(whole ? bytes : HANDOVER_HEAD_CHARS);
    await handle.read(head, 0, head.length, 0);
    let tail: Buffer | null = null;
    if (!whole) {
      tail = Buffer.alloc(HANDOVER_TAIL_CHARS);
      await handle.read(tail, 0, tail.length, bytes - tail.length);
    }
    let sha256: string | null = null;
    if (bytes <= MAX_HASHED_BYTES) {
      const hash = createHash('sha256');
      for await (const chunk of handle.createReadStream({ start: 0, end: Math.max(0, bytes - 1), autoClose: false })) hash.update(chunk as Buffer);
      sha256 = hash.digest('hex');
    }
    return { ...base, state: 'present', bytes, sha256, ...excerptOf(head, tail, bytes) };
  } catch (error) {
    return { ...base, state: 'unreadable', note: describeError(error) };
  } finally {
    await handle.close();
  }
}

/**
 * The harness note that starts a lap: the file named by its path, its excerpt, and the
 * request to update it. `legacy`: a log written before `handover` was recorded (the whole
 * content, or `null`). `memory`: the execution memory of the last checkpoint
 * (`checkpointMemory`, handover.ts), when there was one.
 */
export function lapNote(lap: number, maxLaps: number, handover: Handover | undefined, legacy: string | null | undefined, memory?: string): string {
  const start = `Lap ${lap} of ${maxLaps}: you start with no memory of earlier laps. `;
  if (!handover) {
    const said = legacy === null || legacy === undefined ? 'There is no progress file yet.' : `The progress file says:\n${progressExcerpt(legacy)}`;
    return `${start}${said}${memory ? `\n${memory}` : ''}\nBefore you finish this lap, update the progress file: what is done, what is next, what was tried without success.`;
  }
  const name = `the progress file ${handover.path}`;
  let said: string;
  if (handover.state === 'missing') said = `There is no progress file yet (${handover.path}).`;
  else if (handover.state === 'unreadable') said = `The progress file ${handover.path} could not be read${handover.note ? ` (${handover.note})` : ''}.`;
  else if (handover.truncated) said = `The progress file ${handover.path} (${handover.bytes} bytes) begins and ends as follows; read the file itself for the rest:\n${handover.excerpt}`;
  else said = `The progress file ${handover.path} says:\n${handover.excerpt}`;
  return `${start}${said}${memory ? `\n${memory}` : ''}\nBefore you finish this lap, update ${name}: what is done, what is next, what was tried without success.`;
}
