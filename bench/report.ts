// Shared helpers of the benchmarks in bench/: timing statistics, the machine header and
// one printed line per target. Benchmarks print; they never fail the run (`npm run bench`
// chains several files, so each exits 0 and says MISSED for a target it did not meet).
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

/** The machine the numbers were measured on. */
export function machine(): string {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() ?? 'unknown CPU';
  return `${model} · ${cpus.length} CPU · ${Math.round(os.totalmem() / 2 ** 30)} GiB · node ${process.version} · ${os.platform()} ${os.arch()}`;
}

/** The load averages over 1 and 5 minutes, and whether other work competes for the CPUs. */
export function load(): string {
  const [one = 0, five = 0] = os.loadavg();
  const busy = one > os.cpus().length * 0.75;
  return `load ${one.toFixed(2)} (1 min), ${five.toFixed(2)} (5 min)${busy ? ': the machine is busy, times are inflated' : ''}`;
}

/** Prints the header of one bench file. */
export function header(title: string): void {
  process.stdout.write(`\n== ${title}\n   machine: ${machine()}\n   ${load()}\n`);
}

/** Milliseconds `fn` took once. */
export function timeMs(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

/** The `q` quantile (0..1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank]!;
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** Results of every target printed so far, for a summary line. */
const results: Array<{ name: string; met: boolean }> = [];

/**
 * Prints one target line: `<line>  ok` or `<line>  MISSED`.
 * @returns whether the target was met
 */
export function target(name: string, line: string, met: boolean): boolean {
  results.push({ name, met });
  process.stdout.write(`${line}  ${met ? 'ok' : 'MISSED'}\n`);
  return met;
}

/** Prints a detail line under a target. */
export function detail(line: string): void {
  process.stdout.write(`   ${line}\n`);
}

/** Prints the summary of every target of this process. */
export function summary(title: string): void {
  const missed = results.filter((r) => !r.met).map((r) => r.name);
  process.stdout.write(
    missed.length === 0
      ? `${title}: all ${results.length} targets met\n`
      : `${title}: MISSED ${missed.length} of ${results.length} targets (${missed.join(', ')})\n`,
  );
}

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Runs a full garbage collection, so one measurement does not pay for the last one's garbage. */
export function collectGarbage(): void {
  gc();
}

/**
 * The parts of a bench file named on its command line, all of them when none is named.
 * Exits 1 naming the unknown ones (and the known ones) otherwise.
 */
export function namedParts<P extends string>(script: string, all: readonly P[], named: readonly string[] = process.argv.slice(2)): P[] {
  const unknown = named.filter((p) => !(all as readonly string[]).includes(p));
  if (unknown.length > 0) {
    process.stderr.write(`${script}: unknown part ${unknown.join(', ')}; parts: ${all.join(', ')}\n`);
    process.exit(1);
  }
  return named.length > 0 ? (named as P[]) : [...all];
}
