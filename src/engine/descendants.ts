import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The variable each command loopdeck starts carries, with a value of its own: every
 * descendant inherits it, so the processes of one command can be found after they left
 * its process group (`setsid`) and were re-parented.
 */
export const TAG_VARIABLE = 'LOOPDECK_PROCESS_TAG';

/** A fresh value for {@link TAG_VARIABLE}. */
export function newTag(): string {
  return randomBytes(9).toString('hex');
}

/** A process found by its tag. */
export interface TaggedProcess {
  pid: number;
  /** Its process group. */
  pgid: number;
  /** Its command line, at most 200 characters. */
  command: string;
}

/**
 * Every process of this user but this one whose environment holds `TAG_VARIABLE=tag`
 * (Linux `/proc/<pid>/environ`). `null` when `/proc` cannot be read (not Linux); a
 * descendant that cleared its environment is not found.
 */
export function taggedProcesses(tag: string): TaggedProcess[] | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid);
  } catch {
    return null;
  }
  const needle = Buffer.from(`\0${TAG_VARIABLE}=${tag}\0`);
  const found: TaggedProcess[] = [];
  for (const pid of pids) {
    let environ: Buffer;
    try {
      environ = Buffer.concat([Buffer.from('\0'), readFileSync(`/proc/${pid}/environ`), Buffer.from('\0')]);
    } catch {
      continue; // another user's process, or gone
    }
    if (environ.includes(needle)) {
      const { pgid, command } = describe(pid);
      found.push({ pid: Number(pid), pgid, command });
    }
  }
  return found;
}

/** A process of this user, as {@link listProcesses} read it. */
export interface ListedProcess extends TaggedProcess {
  /** Its {@link TAG_VARIABLE} value; `null` when it has none (or cleared its environment). */
  tag: string | null;
}

const TAG_PREFIX = Buffer.from(`${TAG_VARIABLE}=`);
const NUL_TAG_PREFIX = Buffer.from(`\0${TAG_VARIABLE}=`);

/**
 * Every process of this user but this one whose environment can be read, with its group
 * and tag (one pass over Linux `/proc`). Zombies have an empty environment and are left
 * out. `null` when `/proc` cannot be read (not Linux).
 */
export function listProcesses(): ListedProcess[] | null {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid);
  } catch {
    return null;
  }
  const found: ListedProcess[] = [];
  for (const pid of pids) {
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue; // another user's process, or gone
    }
    const { pgid, command, state } = describe(pid);
    if (pgid <= 0 || state === 'Z' || state === 'X') continue; // gone, a zombie, or a kernel thread
    found.push({ pid: Number(pid), pgid, command, tag: tagOf(environ) });
  }
  return found;
}

/** The value of {@link TAG_VARIABLE} in a NUL-separated environment block, or `null`. */
function tagOf(environ: Buffer): string | null {
  let at = 0;
  if (!environ.subarray(0, TAG_PREFIX.length).equals(TAG_PREFIX)) {
    const index = environ.indexOf(NUL_TAG_PREFIX);
    if (index < 0) return null;
    at = index + 1;
  }
  const start = at + TAG_PREFIX.length;
  const end = environ.indexOf(0, start);
  return environ.subarray(start, end < 0 ? environ.length : end).toString('utf8');
}

function describe(pid: string): { pgid: number; command: string; state: string } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses; read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pgid = Number(fields[2]);
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '').join(' ');
    return { pgid, state: fields[0] ?? '?', command: argv.length > 200 ? `${argv.slice(0, 199)}…` : argv || '(no command line)' };
  } catch {
    return { pgid: -1, state: 'X', command: '(gone)' };
  }
}
