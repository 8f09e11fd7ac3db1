/**
 * Secret redaction, applied once where events are written, before anything reaches disk.
 *
 * A redactor replaces with {@link REDACTED}, in every string of a JSON-like value (object keys
 * included):
 * - the values of the environment's secret variables (see {@link isSecretEnvName}) of at
 *   least {@link MIN_SECRET_CHARS} characters, wherever they appear;
 * - known key formats: OpenAI `sk-…`/`sk-proj-…`, Anthropic `sk-ant-…`, Stripe `sk_live_…`,
 *   GitHub `ghp_`/`gho_`/`ghu_`/`ghs_`/`ghr_`/`github_pat_`, GitLab `glpat-`, AWS access key
 *   ids `AKIA…`/`ASIA…`, Slack `xox[baprs]-`, Google `AIza…`, npm `npm_…`, Hugging Face
 *   `hf_…`, JSON Web Tokens, and PEM private key blocks (to the end of the text when the block
 *   was cut off);
 * - the credential after `Authorization:` (and after `Bearer `), the password of
 *   `scheme://user:password@host`, and the value of `NAME=value` / `"name": "value"` text
 *   whose name ends like a secret (`api_key`, `token`, `secret`, `password`, …);
 * - every non-empty string stored under an object key named like a secret.
 *
 * Values are copied, never mutated. Not covered: secrets split across strings, encoded
 * (base64, URL-encoding) forms of environment values, and formats not listed here. Text that
 * is cut short is redacted whole first ({@link boundText}, {@link tailText}): a secret cut
 * in two by a truncation would match neither its value nor its format.
 */
import { isSecretEnvName, MIN_SECRET_CHARS, secretValues } from './secrets.js';

export { isSecretEnvName, MIN_SECRET_CHARS };

/** What a secret is replaced with. */
export const REDACTED = '[REDACTED]';

/** A redactor: returns a redacted deep copy of a JSON-like value, with the same shape. */
export type Redactor = <T>(value: T) => T;

/** Object keys whose string values are secrets (camelCase and snake_case). */
const SECRET_OBJECT_KEY = /(?:api[_-]?key|secret|token|password|passwd|passphrase|credentials?|authorization|private[_-]?key|access[_-]?key)$/i;

/** Whole matches that are secrets. */
const KEY_FORMATS: RegExp[] = [
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
  /(?<![A-Za-z0-9])sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g,
  /(?<![A-Za-z0-9])[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g,
  /(?<![A-Za-z0-9])gh[opsur]_[A-Za-z0-9]{30,}/g,
  /(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{20,}/g,
  /(?<![A-Za-z0-9])glpat-[A-Za-z0-9_-]{20,}/g,
  /(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])/g,
  /(?<![A-Za-z0-9])xox[baprs]-[A-Za-z0-9-]{10,}/g,
  /(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}/g,
  /(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}/g,
  /(?<![A-Za-z0-9])hf_[A-Za-z0-9]{30,}/g,
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
];

/** Matches whose first group is kept and whose second group is the secret. */
const KEEP_PREFIX: RegExp[] = [
  /(\bAuthorization["']?\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token|Digest)\s+)?)([^\s"',;]{8,})/gi,
  /(\bBearer\s+)([A-Za-z0-9._~+/-]{16,}=*)/g,
  /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:)([^\s@/]+)(?=@)/gi,
  /(\b[A-Za-z0-9_.-]*(?:api[_-]?key|apikey|secret|secret[_-]?key|signing[_-]?key|token|passwd|password|passphrase|access[_-]?key|private[_-]?key|credentials?)["']?\s*[:=]\s*["']?)([^\s"'`,;(){}<>]{8,})/gi,
];

/**
 * Literals of which every pattern above holds one (compared ignoring ASCII case): a string
 * holding none of them holds no known secret format.
 */
const SECRET_HINTS: readonly string[] = [
  '-----begin', 'rk-', 'rk_', 'sk-', 'sk_', 'gho_', 'ghp_', 'ghs_', 'ghu_', 'ghr_', 'github_pat_', 'glpat-', 'akia', 'asia',
  'xoxb-', 'xoxa-', 'xoxp-', 'xoxr-', 'xoxs-', 'aiza', 'npm_', 'hf_', 'eyj', 'authorization', 'bearer', '://',
  'api_key', 'api-key', 'apikey', 'secret', 'token', 'passw', 'passphrase', 'access_key', 'access-key', 'accesskey',
  'private_key', 'private-key', 'privatekey', 'signing_key', 'signing-key', 'signingkey', 'credential',
];

/** Any of {@link SECRET_HINTS}, case-insensitive. */
const MAY_HOLD_SECRET = new RegExp(SECRET_HINTS.map(escapeRegExp).join('|'), 'i');

/** From this length on, {@link mayHoldSecret} scans with {@link hintScanner} rather than {@link MAY_HOLD_SECRET}. */
const LONG_TEXT = 1024;

/**
 * Whether `input` holds one of {@link SECRET_HINTS}, ignoring ASCII case (as the `i` flag
 * does without `u`: no other character folds to an ASCII letter). Long text (a chunk of
 * printed JSON) goes through an automaton, one table step a character, which takes about
 * half the time the regular expression's alternation takes.
 */
function mayHoldSecret(input: string): boolean {
  return input.length < LONG_TEXT ? MAY_HOLD_SECRET.test(input) : hintScanner(input);
}

/**
 * An Aho–Corasick automaton of `hints` (lower-case ASCII), as a test of whether a text
 * holds any of them ignoring ASCII case: symbol 0 is every character no hint holds, and a
 * step into a state that ends a hint is -1. (Aho and Corasick, "Efficient string matching",
 * CACM 1975.)
 */
function hintAutomaton(hints: readonly string[]): (text: string) => boolean {
  const symbols = [...new Set(hints.join(''))];
  const symbolOf = new Uint8Array(128);
  symbols.forEach((ch, i) => {
    const code = ch.charCodeAt(0);
    symbolOf[code] = i + 1;
    if (code >= 0x61 && code <= 0x7a) symbolOf[code - 0x20] = i + 1;
  });
  const width = symbols.length + 1;
  const trie: Map<number, number>[] = [new Map()];
  const ends = [false];
  for (const hint of hints) {
    let state = 0;
    for (const ch of hint) {
      const symbol = symbolOf[ch.charCodeAt(0)]!;
      let to = trie[state]!.get(symbol);
      if (to === undefined) {
        to = trie.push(new Map()) - 1;
        ends.push(false);
        trie[state]!.set(symbol, to);
      }
      state = to;
    }
    ends[state] = true;
  }
  // Breadth first: each state's moves are its trie edges, else its fallback state's moves.
  const step = new Int32Array(trie.length * width);
  const fallback = new Int32Array(trie.length);
  const queue: number[] = [];
  for (let symbol = 0; symbol < width; symbol++) {
    const to = trie[0]!.get(symbol) ?? 0;
    step[symbol] = to;
    if (to !== 0) queue.push(to);
  }
  for (let i = 0; i < queue.length; i++) {
    const state = queue[i]!;
    ends[state] = ends[state]! || ends[fallback[state]!]!;
    for (let symbol = 0; symbol < width; symbol++) {
      const to = trie[state]!.get(symbol);
      if (to === undefined) {
        step[state * width + symbol] = step[fallback[state]! * width + symbol]!;
      } else {
        fallback[to] = step[fallback[state]! * width + symbol]!;
        step[state * width + symbol] = to;
        queue.push(to);
      }
    }
  }
  for (let i = 0; i < step.length; i++) if (ends[step[i]!]) step[i] = -1;
  return (text) => {
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      state = step[state * width + (code < 128 ? symbolOf[code]! : 0)]!;
      if (state < 0) return true;
    }
    return false;
  };
}

/** {@link SECRET_HINTS} as an automaton ({@link hintAutomaton}). */
const hintScanner = hintAutomaton(SECRET_HINTS);

/** For tests: the hint check of long text and of short text. */
export const secretHintChecks = { long: hintScanner, short: (text: string) => MAY_HOLD_SECRET.test(text) };

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One alternation of the values, longest first; `null` when there are none. */
function valuePattern(values: readonly string[]): RegExp | null {
  if (values.length === 0) return null;
  const sorted = [...new Set(values)].sort((a, b) => b.length - a.length);
  return new RegExp(sorted.map(escapeRegExp).join('|'), 'g');
}

/**
 * Builds a redactor for the secret values of the given environment (read once, now: see
 * `secretValues` for which variables count, including those a policy declared and those
 * hidden from `process.env`) and for `extra` values (of at least {@link MIN_SECRET_CHARS}
 * characters): call it on every event before it is serialized. Copies arrays and plain
 * objects (other objects as their `toJSON()` or own enumerable fields, as `JSON.stringify`
 * would), redacts every string, keeps numbers, booleans and `null`, and writes `[Circular]`
 * for a cycle.
 */
export function createRedactor(env: Readonly<Record<string, string | undefined>> = process.env, extra: Iterable<string> = []): Redactor {
  const envValues = valuePattern([...secretValues(env), ...[...extra].filter((v) => v.length >= MIN_SECRET_CHARS)]);
  const hasEnvValue = (input: string): boolean => {
    envValues!.lastIndex = 0;
    return envValues!.test(input);
  };
  /** Per object key: the key redacted, and whether its string values are secrets ({@link SECRET_OBJECT_KEY}). */
  const keys = new Map<string, { name: string; secret: boolean }>();
  const key = (k: string): { name: string; secret: boolean } => {
    let out = keys.get(k);
    if (out === undefined) keys.set(k, (out = { name: text(k), secret: SECRET_OBJECT_KEY.test(k) }));
    return out;
  };

  const text = (input: string): string => {
    // Every secret this module knows is at least MIN_SECRET_CHARS long and holds one of the
    // literals of SECRET_HINTS (or an environment value): most strings need no regex at all.
    if (input.length < MIN_SECRET_CHARS) return input;
    if (!mayHoldSecret(input) && !(envValues && hasEnvValue(input))) return input;
    let out = envValues ? input.replace(envValues, REDACTED) : input;
    for (const pattern of KEY_FORMATS) out = out.replace(pattern, REDACTED);
    for (const pattern of KEEP_PREFIX) out = out.replace(pattern, (_match, keep: string) => `${keep}${REDACTED}`);
    return out;
  };

  /**
   * `path`: the objects from the root down to `value`'s parent (a cycle is one of them
   * again). An array, scanned in full at each object: events are a few levels deep, and a
   * push and pop cost less than a set's add and delete. A throw (a `toJSON`, a getter)
   * leaves it as it is: it belongs to the one call that fails.
   */
  const copy = (value: unknown, path: object[]): unknown => {
    if (typeof value === 'string') return text(value);
    if (value === null || typeof value !== 'object') return value;
    if (path.includes(value)) return '[Circular]';
    path.push(value);
    let result: unknown;
    if (Array.isArray(value)) result = value.map((item) => copy(item, path));
    else {
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') result = copy(toJSON.call(value), path);
      else {
        const out: Record<string, unknown> = {};
        const record = value as Record<string, unknown>;
        // Object.keys then a read of each, as Object.entries does, without a pair per field.
        for (const k of Object.keys(record)) {
          const item = record[k];
          const { name, secret } = key(k);
          const redacted = secret && typeof item === 'string' && item !== '' ? REDACTED : copy(item, path);
          // defineProperty: a `__proto__` key stays an own field instead of replacing the prototype.
          if (name === '__proto__') Object.defineProperty(out, name, { value: redacted, enumerable: true, writable: true, configurable: true });
          else out[name] = redacted;
        }
        result = out;
      }
    }
    path.pop();
    return result;
  };

  return <T>(value: T): T => copy(value, []) as T;
}

/** The redactor of this process's current secrets ({@link createRedactor} with the defaults), rebuilt when they change. */
export function processRedactor(): Redactor {
  const key = secretValues().join('\0');
  if (cached === null || cached.key !== key) cached = { key, redact: createRedactor() };
  return cached.redact;
}
let cached: { key: string; redact: Redactor } | null = null;

/** `text` with this process's secrets redacted ({@link processRedactor}). */
export function redactText(text: string): string {
  return processRedactor()(text);
}

/** The marker {@link boundText} puts where it dropped characters. */
export function truncationMark(dropped: number): string {
  return `\n[... ${dropped} characters truncated ...]\n`;
}

/**
 * Keeps the head and tail of `text` within `limit` characters (half each), with a
 * {@link truncationMark} between, after redacting the whole text: a secret that straddles a
 * cut is replaced before the cut, so no part of it is kept.
 */
export function boundText(text: string, limit: number, redact: (text: string) => string = redactText): string {
  const clean = redact(text);
  if (clean.length <= limit) return clean;
  const half = Math.floor(limit / 2);
  return `${clean.slice(0, half)}${truncationMark(clean.length - 2 * half)}${clean.slice(clean.length - half)}`;
}

/** The last `limit` characters of `text` after redacting the whole of it (see {@link boundText}). */
export function tailText(text: string, limit: number, redact: (text: string) => string = redactText): string {
  const clean = redact(text);
  return clean.length <= limit ? clean : clean.slice(clean.length - limit);
}

/**
 * Redacts every text written to `stream` (this process's secrets, {@link redactText}, as
 * they are at the time of the write): the last guard of what loopdeck prints, whoever
 * prints it (the console, the final line, an error, a library's warning). Buffers are
 * written as they are.
 */
export function redactWrites(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]) => write(typeof chunk === 'string' ? redactText(chunk) : chunk, ...rest)) as typeof stream.write;
}
