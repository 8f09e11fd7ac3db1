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

/** A superset of every pattern above (case-insensitive literals): a string without a match holds no known secret format. */
const MAY_HOLD_SECRET =
  /-----BEGIN|[rs]k[-_]|gh[opsur]_|github_pat_|glpat-|A[KS]IA|xox[baprs]-|AIza|npm_|hf_|eyJ|authorization|bearer|:\/\/|api[_-]?key|apikey|secret|token|passw|passphrase|access[_-]?key|private[_-]?key|signing[_-]?key|credential/i;

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
    // literals of MAY_HOLD_SECRET (or an environment value): most strings need no regex at all.
    if (input.length < MIN_SECRET_CHARS) return input;
    if (!MAY_HOLD_SECRET.test(input) && !(envValues && hasEnvValue(input))) return input;
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
