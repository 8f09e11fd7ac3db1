// Seeded damage of the frozen log corpus (tests/fixtures/logs/): lines lost, repeated,
// torn, swapped, changed a character at a time, NUL blocks, garbage and foreign lines, in
// up to three places per log. The same seed gives the same logs on every machine, so what
// a reader makes of them can be written down once and compared after every change.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { seededRandom as mulberry32 } from './random.js';

export const CORPUS = path.resolve(import.meta.dirname, '../fixtures/logs');

const FOREIGN = ['garbage {', '', '   ', '{"seq":"x"}', 'null', '[]', '{"seq":1,"at":1,"session":"s","type":"nope.x","data":{}}', '"text"'];

/** Kinds of damage, each changing the lines in place (`pick(n)`: a whole number below `n`). */
const DAMAGES: Array<(lines: string[], pick: (n: number) => number) => void> = [
  (ls, pick) => void ls.splice(pick(ls.length), 1),
  (ls, pick) => {
    const i = pick(ls.length);
    ls.splice(i, 0, ls[i]!);
  },
  (ls, pick) => {
    const i = pick(ls.length);
    ls[i] = ls[i]!.slice(0, pick(ls[i]!.length));
  },
  (ls, pick) => void ls.splice(pick(ls.length), 0, FOREIGN[pick(FOREIGN.length)]!),
  (ls, pick) => {
    const i = pick(ls.length);
    ls[i] = '\0'.repeat(1 + pick(500)) + ls[i]!;
  },
  (ls, pick) => {
    const i = pick(ls.length);
    const at = pick(ls[i]!.length);
    ls[i] = `${ls[i]!.slice(0, at)}\0\0${ls[i]!.slice(at)}`;
  },
  (ls, pick) => {
    const i = pick(ls.length);
    const j = pick(ls.length);
    [ls[i], ls[j]] = [ls[j]!, ls[i]!];
  },
  (ls, pick) => {
    const i = pick(ls.length);
    const at = pick(ls[i]!.length);
    ls[i] = ls[i]!.slice(0, at) + String.fromCharCode(32 + pick(90)) + ls[i]!.slice(at + 1);
  },
  (ls, pick) => {
    const i = pick(ls.length);
    ls[i] = ls[i]!.replace(/"type":"([a-z]+)\.([a-z_]+)"/, (_m, a: string, b: string) => (pick(2) === 0 ? `"type":"${b}.${a}"` : `"type":"${a}.${b}x"`));
  },
  (ls, pick) => {
    const i = pick(ls.length);
    ls[i] = ls[i]!.replace(/"seq":\d+/, `"seq":${pick(ls.length + 3)}`);
  },
  (ls, pick) => {
    const i = pick(ls.length);
    ls[i] = ls[i]!.replace(/"data":\{/, '"data":null,"x":{');
  },
  (ls, pick) => {
    const i = pick(ls.length);
    ls[i] = ls[i]!.replace(/,/g, ' ,  ').replace(/:/, ' : ');
  },
];

/** The corpus logs, by name (sorted), with their text. */
export function corpusLogs(): Array<{ name: string; text: string }> {
  return readdirSync(CORPUS)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => ({ name, text: readFileSync(path.join(CORPUS, name), 'utf8') }));
}

/** `count` damaged copies of the corpus logs, made from `seed`: each names its log and the damage's number. */
export function damagedLogs(seed: number, count: number): Array<{ name: string; text: string }> {
  const logs = corpusLogs();
  const next = mulberry32(seed);
  const pick = (n: number) => Math.floor(next() * n);
  const out: Array<{ name: string; text: string }> = [];
  for (let k = 0; k < count; k++) {
    const { name, text } = logs[pick(logs.length)]!;
    const lines = text.split('\n');
    const end = lines.at(-1) === '' ? (lines.pop(), '\n') : '';
    for (let times = 1 + pick(3); times > 0; times--) DAMAGES[pick(DAMAGES.length)]!(lines, pick);
    out.push({ name: `${name} #${k}`, text: lines.join('\n') + (pick(10) === 0 ? '' : end) });
  }
  return out;
}

/** The readers whose outcome {@link readerOutcome} records (passed in, so that another build of them can be compared). */
export interface Readers {
  foldLog: (text: string, file: string) => unknown;
  parseLog: (text: string, file: string) => { events: unknown[]; warnings: string[]; unresumable?: string };
  fold: (events: never[]) => unknown;
  toJson: (value: unknown) => string;
}

/**
 * Everything the readers make of `text`, as one string: `foldLog`'s state, warnings and
 * unresumable text (or its error), `parseLog`'s count of events, warnings and unresumable
 * text (or its error), and `fold` of those events (or its error). Keys in the order the
 * readers write them: a change of order shows too.
 */
export function readerOutcome(text: string, readers: Readers): string {
  const file = 'runs/x/events.jsonl';
  const parts: unknown[] = [];
  const attempt = (f: () => unknown) => {
    try {
      parts.push(f());
    } catch (error) {
      parts.push(`threw: ${(error as Error).message}`);
    }
  };
  attempt(() => readers.foldLog(text, file));
  attempt(() => {
    const { events, warnings, unresumable } = readers.parseLog(text, file);
    parts.push({ events: events.length, warnings, unresumable });
    return readers.fold(events as never[]);
  });
  return readers.toJson(parts);
}
