/**
 * The secrets of this process's environment: which variables hold them, where their values
 * are kept, and how they are kept away from the processes loopdeck starts.
 *
 * Secret variables are those with a secret-looking name ({@link isSecretEnvName}) and those
 * a run's policy names (`agent.api_key_env`, `agent.env_passthrough`, declared with
 * {@link declareSecretEnv}). Their values (of at least {@link MIN_SECRET_CHARS} characters)
 * are what {@link secretValues} returns for redaction.
 *
 * Once the command line calls {@link hideSecretEnv}, secret variables are taken out of
 * `process.env` into memory (read back with {@link envValue}) and their values are
 * overwritten in the process's initial environment block, the memory that
 * `/proc/<pid>/environ` shows: deleting a variable from `process.env` alone leaves it
 * readable there by any process of the same user, a tool or hook included. The block is
 * written through `/proc/self/mem` (Linux); where that is impossible the values stay in
 * the block and {@link hideSecretEnv} says so.
 */
import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';

/** Shorter values are not redacted (they would match ordinary text such as `1` or `true`). */
export const MIN_SECRET_CHARS = 8;

/** Secret-looking names: containing KEY, TOKEN, SECRET, PASSWORD (or PASSWD, PASSPHRASE, CREDENTIAL), or ending in PASS, PAT or AUTH. */
const SECRET_ENV_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|(?:^|_)(?:PASS|PAT|AUTH)$/;

/** Whether an environment variable with this name holds a secret by its name alone (case-insensitive). */
export function isSecretEnvName(name: string): boolean {
  return SECRET_ENV_NAME.test(name.toUpperCase());
}

/** Values taken out of `process.env` by {@link hideSecretEnv}, by name. */
const held = new Map<string, string>();
/** Names a policy declared secret although their names do not look it. */
const declared = new Set<string>();
/** Set by {@link hideSecretEnv}: declared names are hidden too from then on. */
let hiding = false;

/** The value of environment variable `name`, from `process.env` or from where {@link hideSecretEnv} keeps it. */
export function envValue(name: string): string | undefined {
  return process.env[name] ?? held.get(name);
}

/**
 * Declares variables secret by name (a policy's `api_key_env` and `env_passthrough`): their
 * values are redacted from then on, and hidden like the others once {@link hideSecretEnv}
 * was called.
 */
export function declareSecretEnv(names: Iterable<string>): void {
  const fresh = [...names].filter((name) => !declared.has(name));
  for (const name of fresh) declared.add(name);
  if (hiding && fresh.length > 0) hide(fresh);
}

/** Values of the secret variables (secret-looking or declared, set, of at least {@link MIN_SECRET_CHARS} characters), longest first. */
export function secretValues(env: Readonly<Record<string, string | undefined>> = process.env): string[] {
  const values = new Set<string>();
  const add = (name: string, value: string | undefined) => {
    if (value !== undefined && value.length >= MIN_SECRET_CHARS && (declared.has(name) || isSecretEnvName(name))) values.add(value);
  };
  for (const [name, value] of held) add(name, value);
  for (const [name, value] of Object.entries(env)) add(name, value);
  return [...values].sort((a, b) => b.length - a.length);
}

/** What {@link hideSecretEnv} did. */
export interface HideResult {
  /** Names taken out of `process.env`. */
  hidden: string[];
  /** Why the values could not be overwritten in `/proc/<pid>/environ`, or `null` when they were (or there were none). */
  problem: string | null;
}

/**
 * Takes every secret variable out of `process.env` (keeping its value for {@link envValue})
 * and overwrites its value in this process's initial environment block, so that neither
 * `process.env` of this process nor `/proc/<pid>/environ` holds it. Names declared later
 * with {@link declareSecretEnv} are hidden the same way. For the command line only: a
 * library caller keeps its environment.
 */
export function hideSecretEnv(): HideResult {
  hiding = true;
  const names = Object.keys(process.env).filter((name) => isSecretEnvName(name) || declared.has(name));
  return hide(names);
}

function hide(names: string[]): HideResult {
  const taken = new Map<string, string>();
  for (const name of names) {
    const value = process.env[name];
    if (value === undefined) continue;
    held.set(name, value);
    taken.set(name, value);
    delete process.env[name];
  }
  if (taken.size === 0) return { hidden: [], problem: null };
  let problem: string | null = null;
  try {
    scrubEnvironBlock(taken);
  } catch (error) {
    problem = `${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
  return { hidden: [...taken.keys()], problem };
}

/**
 * Overwrites with `*` the values of `NAME=value` entries of the initial environment block
 * (addresses `env_start`..`env_end`, fields 50 and 51 of `/proc/self/stat`), through
 * `/proc/self/mem`. Nothing points into those entries any more once the variables were
 * deleted from `process.env` (unsetenv drops them from `environ`).
 * @throws the file system's error when `/proc` cannot be read or written
 */
function scrubEnvironBlock(taken: ReadonlyMap<string, string>): void {
  const stat = readFileSync('/proc/self/stat', 'latin1');
  // Fields after the command name (which may hold spaces) start at field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[50 - 3]);
  const end = Number(fields[51 - 3]);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end <= start) throw new Error('no environment block in /proc/self/stat');
  const fd = openSync('/proc/self/mem', 'r+');
  try {
    const block = Buffer.alloc(end - start);
    readSync(fd, block, 0, block.length, start);
    let offset = 0;
    while (offset < block.length) {
      let stop = block.indexOf(0, offset);
      if (stop === -1) stop = block.length;
      const entry = block.toString('utf8', offset, stop);
      const eq = entry.indexOf('=');
      if (eq > 0 && taken.has(entry.slice(0, eq))) {
        const valueStart = offset + Buffer.byteLength(entry.slice(0, eq + 1));
        const stars = Buffer.alloc(stop - valueStart, '*');
        writeSync(fd, stars, 0, stars.length, start + valueStart);
      }
      offset = stop + 1;
    }
  } finally {
    closeSync(fd);
  }
}
