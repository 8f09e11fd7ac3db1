/**
 * Noise in tool output that differs on every try of the same failing call: timestamps,
 * durations, hex ids, temporary paths, process ids and counters of elapsed time. The
 * repetition guard (`repetition.ts`) compares results after {@link normaliseOutput}, so a
 * retry loop whose error text carries a timestamp is still one result repeated, while a
 * job whose output really advances (`10%`, `20%`; `3 failed`, `2 failed`) is not.
 *
 * The rules only rewrite text whose shape says it is a clock, an id or a place made up
 * for one run; plain counts are left alone. The same idea as the "masking" of volatile
 * fields that log-deduplication tools apply before comparing lines (e.g. the variable
 * masking of the Drain log parser, logpai/logparser).
 *
 * Pure: no clock, no environment.
 */

/** One rewrite: what it matches and what it leaves in place. */
interface NoiseRule {
  name: string;
  pattern: RegExp;
  replace: string | ((match: string, ...groups: string[]) => string);
}

const UNIT = String.raw`(?:ns|µs|us|ms|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?)`;

/**
 * The rules, applied in order. Earlier rules take whole shapes (a timestamp) before later
 * ones could take their parts (a duration like `35s`).
 */
const RULES: readonly NoiseRule[] = [
  // 2026-12-01T00:02:35.123Z, 2026-12-01 00:02:35+01:00, 2026/12/01 00:02
  {
    name: 'timestamp',
    pattern: /\b\d{4}[-/]\d{2}[-/]\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s?(?:Z|[+-]\d{2}:?\d{2}|UTC|GMT)\b)?)?/g,
    replace: '<time>',
  },
  // 00:02:35, 00:02:35.123 (a clock time; `Tue Dec  1 00:02:35 UTC 2026`)
  { name: 'clock', pattern: /\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b/g, replace: '<time>' },
  // 01/Dec/2026:00:02:35 (common log format)
  { name: 'log-date', pattern: /\b\d{2}\/[A-Z][a-z]{2}\/\d{4}\b/g, replace: '<time>' },
  // UUIDs, before hex runs take their parts
  { name: 'uuid', pattern: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, replace: '<id>' },
  // 0x7ffd5e8c, and hex runs of 7 or more with a digit and a letter (sha, request ids)
  { name: 'hex', pattern: /\b0x[0-9a-f]+\b/gi, replace: '<id>' },
  { name: 'hex', pattern: /\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,}\b/gi, replace: '<id>' },
  // epoch seconds (2017–2033) and milliseconds
  { name: 'epoch', pattern: /(?<![\d.])1[5-9]\d{8}(?:\d{3})?(?:\.\d+)?(?![\d.])/g, replace: '<time>' },
  // temporary folders: the made-up folder name only, the path inside it is kept
  {
    name: 'temp-path',
    pattern: /(?:\/private)?\/var\/folders\/[^/\s]+\/[^/\s]+\/T\/[^/\s'":,;)\]}]+|\/(?:tmp|var\/tmp|dev\/shm)\/[^/\s'":,;)\]}]+/g,
    replace: '<tmp>',
  },
  { name: 'temp-path', pattern: /\\AppData\\Local\\Temp\\[^\\\s'":,;)\]}]+/gi, replace: '\\<tmp>' },
  // pid 1234, PID: 1234, process 1234, sshd[1234]:
  { name: 'pid', pattern: /\b(pid|process|ppid|pgid)([\s:=#]+)\d+\b/gi, replace: (_m, word: string, sep: string) => `${word}${sep}<pid>` },
  { name: 'pid', pattern: /\b([A-Za-z_][\w.-]*)\[\d+\](?=:)/g, replace: (_m, name: string) => `${name}[<pid>]` },
  // durations: 35s, 1.2 ms, 2m3s, 1h 2m, 300 milliseconds
  {
    name: 'duration',
    pattern: new RegExp(String.raw`(?<![\w.])\d+(?:\.\d+)?\s?(?:${UNIT}|milliseconds?)(?:\s?\d+(?:\.\d+)?\s?${UNIT})*(?![A-Za-z0-9])`, 'g'),
    replace: '<duration>',
  },
  // counters of elapsed time: "elapsed 12", "took 3.2", "waited: 40", "uptime 91"
  {
    name: 'elapsed',
    pattern: /\b(elapsed|took|waited|uptime|duration)([\s:=]+)\d+(?:\.\d+)?(?![\d.])/gi,
    replace: (_m, word: string, sep: string) => `${word}${sep}<duration>`,
  },
];

/**
 * The output of a tool call with its noise replaced by placeholders (`<time>`, `<id>`,
 * `<tmp>`, `<pid>`, `<duration>`), so that two tries of the same call that differ only
 * in noise give the same text. Numbers that are not noise by their shape (counts,
 * percentages, line numbers) are kept.
 *
 * @param output a tool result's text, as the agent saw it
 * @returns the text with the rules of this module applied in order
 */
export function normaliseOutput(output: string): string {
  let text = output;
  for (const rule of RULES) {
    text = typeof rule.replace === 'string' ? text.replace(rule.pattern, rule.replace) : text.replace(rule.pattern, rule.replace);
  }
  return text;
}
