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
    if (environ.includes(needle)) found.push({ pid: Number(pid), ...describe(pid) });
  }
  return found;
}

function describe(pid: string): { pgid: number; command: string } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid pgrp ...`: comm may hold spaces and parentheses; read after the last ')'.
    const pgid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((a) => a !== '').join(' ');
    return { pgid, command: argv.length > 200 ? `${argv.slice(0, 199)}…` : argv || '(no command line)' };
  } catch {
    return { pgid: -1, command: '(gone)' };
  }
}
