/**
 * Safe YAML loading with errors a person can act on.
 *
 * Every problem becomes a {@link ConfigError} naming the file, the YAML path, `line:column`,
 * what was expected and what was found (and, for a misspelt key or enum value, the nearest
 * allowed one). Parsing is YAML 1.2 only; duplicate keys, syntax errors and warnings (unknown
 * tags) are errors and never printed; alias expansion is bounded; `__proto__`, `constructor`
 * and `prototype` keys are refused before any JavaScript object is built, and so are merge
 * keys (`<<`, which YAML 1.2 does not have); numbers with leading zeros are refused (YAML 1.2
 * reads `010` as 10, YAML 1.1 as 8), and characters YAML takes in no file raw (control
 * characters, which the yaml library reads without a word). Sizes are bounded
 * too: the file's bytes, one document per file, the depth of nesting (checked on the text
 * before the parser runs, see ./yaml-bounds.ts), and the length of anything an error
 * quotes back.
 */
import { closeSync, lstatSync, openSync, readlinkSync, readSync, statSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import {
  isAlias,
  isCollection,
  isMap,
  isNode,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  Scalar,
  type Document,
  type Node,
  type Pair,
  type YAMLMap,
  type YAMLSeq,
  type YAMLError,
} from 'yaml';
import type { z } from 'zod';
import { shownName } from '../text/sanitize.js';
import { ConfigError, ConfigErrors, UnreadableConfigError } from './errors.js';
import { fsReason } from './workspace-path.js';
import { clipText, isStackOverflow, MAX_YAML_DEPTH, measureNesting, quoted } from './yaml-bounds.js';

/** Largest YAML file accepted, in bytes. */
export const MAX_YAML_BYTES = 1024 * 1024;

/** Most nodes that alias expansion may add to a document (a "billion laughs" stops here). */
export const MAX_ALIAS_EXPANSION = 10_000;

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

type Keys = readonly PropertyKey[];

/** Longest YAML path an error shows; a longer one keeps its start and end. */
const MAX_PATH_CHARS = 160;

/**
 * `agent.script`, `observe[0].command`: the path as a person writes it. A long key is cut
 * (see {@link clipText}) and a path longer than {@link MAX_PATH_CHARS} loses its middle.
 */
export function dottedPath(keys: Keys): string {
  const path = keys
    .map((k) => (typeof k === 'number' ? `[${k}]` : `.${clipText(String(k))}`))
    .join('')
    .replace(/^\./, '');
  if (path.length <= MAX_PATH_CHARS) return path;
  return `${path.slice(0, MAX_PATH_CHARS / 2)}…${path.slice(path.length - MAX_PATH_CHARS / 2 + 1)}`;
}

/**
 * Describes a parsed value for the "found …" part of a message: strings quoted (and cut,
 * see `quoted` in ./yaml-bounds.ts), numbers as YAML spells the odd ones (`.nan`, `.inf`), `null` as "an
 * empty value", `undefined` as "nothing".
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'an empty value';
  if (typeof value === 'string') return quoted(value);
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return '.nan';
    if (!Number.isFinite(value)) return value > 0 ? '.inf' : '-.inf';
    return String(value);
  }
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list';
  if (typeof value === 'object') return 'a mapping';
  return String(value);
}

/** Optimal-string-alignment distance: insertions, deletions, substitutions, adjacent swaps. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** Longest word {@link nearestKey} looks for a misspelling of (names are short; the distance costs length²). */
const MAX_SUGGEST_CHARS = 64;

/**
 * The candidate closest to `word` (case-insensitive edit distance with adjacent swaps), when
 * it is close enough to be a likely misspelling: at most one edit per four characters (at
 * least one). `undefined` when nothing is that close, or `word` is longer than
 * {@link MAX_SUGGEST_CHARS} (a 100 KB key is no misspelling, and a suggestion is at most
 * a quarter longer than the word).
 */
export function nearestKey(word: string, candidates: readonly string[]): string | undefined {
  if (word.length > MAX_SUGGEST_CHARS) return undefined;
  const allowed = Math.max(1, Math.floor(word.length / 4));
  let best: { key: string; distance: number } | undefined;
  for (const key of candidates) {
    if (Math.abs(key.length - word.length) > allowed) continue;
    const distance = editDistance(word.toLowerCase(), key.toLowerCase());
    if (distance <= allowed && (!best || distance < best.distance)) best = { key, distance };
  }
  return best?.key;
}

// ---------------------------------------------------------------------------------------
// Locating nodes

interface Located {
  /** The value node at the path (or of the deepest step found, when `found` is false). */
  node?: Node;
  /** The key node of that value, when it sits in a mapping. */
  key?: Node;
  /** Whether the whole path exists. */
  found: boolean;
}

/**
 * A key as the file names it: a string key as it is, any other scalar (`null`, `~`, `1`,
 * `true`) as written in the source, so an error quotes the key the user wrote and finds it
 * again. `undefined` for a key that is not a scalar (a list or mapping used as a key).
 */
function scalarKey(node: unknown): string | undefined {
  if (!isScalar(node)) return undefined;
  if (typeof node.value === 'string') return node.value;
  return (node as Scalar & { source?: string }).source ?? String(node.value);
}

/**
 * The nodes at a YAML path. A key written twice in a mapping (an error of its own) leads to
 * its last value, the one the document's object keeps.
 */
function locate(doc: Document, keys: Keys): Located {
  let current: unknown = doc.contents;
  let key: Node | undefined;
  for (const step of keys) {
    if (isAlias(current)) current = current.resolve(doc);
    let next: unknown;
    let nextKey: Node | undefined;
    if (isMap(current)) {
      const named = current.items.filter((p) => scalarKey(p.key) === String(step));
      const pair = named[named.length - 1];
      if (pair) {
        next = pair.value ?? undefined;
        nextKey = isNode(pair.key) ? pair.key : undefined;
        if (next === undefined) return { key: nextKey, found: true };
      }
    } else if (isSeq(current) && typeof step === 'number') {
      next = current.items[step];
    }
    if (!isNode(next)) return { node: isNode(current) ? current : undefined, key, found: false };
    current = next;
    key = nextKey;
  }
  return { node: isNode(current) ? current : undefined, key, found: true };
}

function linePos(lines: LineCounter, offset: number): { line: number; col: number } {
  return lines.linePos(offset);
}

function at(lines: LineCounter, offset: number): string {
  const { line, col } = linePos(lines, offset);
  return `${line}:${col}`;
}

/**
 * `line:column` for a YAML path: the value when it starts on its key's line (`max: 0`), the
 * key when the value is a block below it or absent. A path that does not exist (a missing
 * key) is placed at its deepest existing ancestor, by the same rule.
 */
function positionOf(doc: Document, lines: LineCounter, keys: Keys): string | undefined {
  const { node, key } = locate(doc, keys);
  if (key?.range && node?.range) {
    return linePos(lines, key.range[0]).line === linePos(lines, node.range[0]).line ? at(lines, node.range[0]) : at(lines, key.range[0]);
  }
  const either = key ?? node;
  return either?.range ? at(lines, either.range[0]) : undefined;
}

/**
 * `line:column` of the key at the end of a YAML path (an unknown key is the key itself, not
 * its value); {@link positionOf} when the path does not end at a key of a mapping.
 */
function keyPositionOf(doc: Document, lines: LineCounter, keys: Keys): string | undefined {
  const { key, found } = locate(doc, keys);
  return found && key?.range ? at(lines, key.range[0]) : positionOf(doc, lines, keys);
}

/**
 * The YAML path of the deepest key or item whose source range holds `offset`. Given the
 * `source`, a key written across a line break is not taken: YAML takes such a key only as a
 * syntax error, where the parser made it of the broken text (`objective: fix it` with a more
 * indented `x: bad` under it reads as the key `fix it x`), and it names nothing the file meant.
 */
function pathAtOffset(doc: Document, offset: number, source?: string): PropertyKey[] {
  const inside = (node: unknown) => isNode(node) && !!node.range && node.range[0] <= offset && offset < node.range[2];
  const walk = (node: unknown, keys: PropertyKey[]): PropertyKey[] => {
    if (isMap(node)) {
      const holds = (pair: Pair): boolean => {
        if (scalarKey(pair.key) === undefined || !isNode(pair.key) || !pair.key.range) return false;
        if (source !== undefined && source.slice(pair.key.range[0], pair.key.range[1]).includes('\n')) return false;
        // A tag or anchor sits between the key and the start of its value's range.
        const end = isNode(pair.value) && pair.value.range ? pair.value.range[2] : pair.key.range[2];
        return inside(pair.value) || (pair.key.range[0] <= offset && offset < end);
      };
      const pair = itemAt(node.items as Pair[], offset, holds);
      if (pair) return inside(pair.value) ? walk(pair.value, [...keys, scalarKey(pair.key)!]) : [...keys, scalarKey(pair.key)!];
    } else if (isSeq(node)) {
      const index = indexAt(node.items, offset, inside);
      if (index >= 0) return walk(node.items[index], [...keys, index]);
    }
    return keys;
  };
  return walk(doc.contents, []);
}

/** Where an item of a collection starts in the source: a pair at its key (else its value), a node at its range. */
function startOf(item: unknown): number | undefined {
  const node = isPair(item) ? (isNode(item.key) ? item.key : item.value) : item;
  return isNode(node) && node.range ? node.range[0] : undefined;
}

/**
 * The index of the item of `items` (a collection's, in source order) for which `holds` is
 * true at `offset`, or -1: the last item that starts at or before `offset` is tried first
 * (a binary search, so a mapping of thousands of keys is not walked once per error), then
 * every item in order.
 */
function indexAt<T>(items: readonly T[], offset: number, holds: (item: T) => boolean): number {
  let low = 0;
  let high = items.length - 1;
  let candidate = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const start = startOf(items[middle]);
    if (start === undefined) break;
    if (start <= offset) {
      candidate = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  if (candidate >= 0 && holds(items[candidate]!)) return candidate;
  return items.findIndex(holds);
}

/** The item of {@link indexAt}, or `undefined`. */
function itemAt<T>(items: readonly T[], offset: number, holds: (item: T) => boolean): T | undefined {
  const index = indexAt(items, offset, holds);
  return index < 0 ? undefined : items[index];
}

// ---------------------------------------------------------------------------------------
// Checks on the document tree, before any JavaScript object exists

const LEADING_ZERO = /^[-+]?0\d/;

function sourceOf(scalar: Scalar): string {
  return (scalar as Scalar & { source?: string }).source ?? String(scalar.value);
}

/** `expected …` of every nesting error: the limit and why it exists. */
const DEPTH_EXPECTED = `expected at most ${MAX_YAML_DEPTH} levels of nesting`;

/**
 * A measure of nodes once every alias in them is expanded: the nodes a node stands for
 * (`size`) and the levels of collections it nests (`height`), memoized per node; a node
 * inside itself (an alias cycle) measures `Infinity`.
 */
function expandedSize(doc: Document): (node: unknown) => { size: number; height: number } {
  const sizes = new Map<Node, { size: number; height: number }>();
  const inProgress = new Set<Node>();
  const measure = (node: unknown): { size: number; height: number } => {
    if (isAlias(node)) {
      const target = node.resolve(doc);
      return target ? measure(target) : { size: 1, height: 0 };
    }
    if (isPair(node)) {
      const key = measure(node.key);
      const value = measure(node.value);
      return { size: key.size + value.size, height: Math.max(key.height, value.height) };
    }
    if (!isNode(node)) return { size: 0, height: 0 };
    const memo = sizes.get(node);
    if (memo !== undefined) return memo;
    if (inProgress.has(node)) return { size: Infinity, height: Infinity };
    inProgress.add(node);
    const result = { size: 1, height: 0 };
    if (isCollection(node)) {
      for (const item of node.items) {
        const inner = measure(item);
        result.size += inner.size;
        result.height = Math.max(result.height, inner.height);
      }
      result.height += 1;
    }
    inProgress.delete(node);
    sizes.set(node, result);
    return result;
  };

  return measure;
}

/** What {@link treeProblems} found on the tree. */
interface TreeProblems {
  /** Every problem, with the YAML path of the value it is about; `tag`: the problem is a tag on the value; `onKey`: on its key. */
  errors: Array<{ error: ConfigError; keys: PropertyKey[]; tag?: true; onKey?: true }>;
  /** Whether one of them stops the reading (runaway aliases, nesting too deep): no JavaScript value may be built. */
  fatal: boolean;
}

/** The file's base name, as a message says what it takes (`loop.yaml takes no tags`). */
function fileName(file: string): string {
  return file.split(/[\\/]/).pop() || file;
}

/**
 * Problems found on the tree: forbidden or non-scalar keys, leading zeros, tags (standard
 * `!!str` ones too: unknown ones are the parser's warnings), runaway aliases, nesting deeper
 * than {@link MAX_YAML_DEPTH} once aliases are expanded (a chain of aliases nests as deep as
 * the anchors it goes through). Pairs whose key is refused are taken out of the document, so
 * the rest of it can still be checked against the schema; a key that is a scalar but not a
 * string (`null`, `~`, `1`) is made the string it is written as.
 */
function treeProblems(doc: Document, lines: LineCounter, source: string, file: string): TreeProblems {
  const problems: TreeProblems['errors'] = [];
  let fatal = false;
  const push = (keys: PropertyKey[], expected: string, position: string | undefined) => problems.push({ error: new ConfigError(file, dottedPath(keys), expected, position), keys });
  let expansion = 0;
  let expansionReported = false;
  let depthReported = false;

  const measure = expandedSize(doc);

  const tooDeep = (keys: PropertyKey[], node: Node, found: string) => {
    fatal = true;
    if (depthReported) return;
    depthReported = true;
    push(keys, `${DEPTH_EXPECTED}, found ${found}`, node.range ? at(lines, node.range[0]) : undefined);
  };

  /** `depth`: the levels of collections that hold `node`. */
  const walk = (node: unknown, keys: PropertyKey[], depth: number): void => {
    if (isAlias(node)) {
      const target = node.resolve(doc);
      const { size, height } = target ? measure(target) : { size: 0, height: 0 };
      expansion += size;
      if (!expansionReported && expansion > MAX_ALIAS_EXPANSION) {
        expansionReported = true;
        fatal = true;
        push(
          keys,
          `expected aliases to expand to at most ${MAX_ALIAS_EXPANSION} nodes, found *${clipText(node.source)} taking the document past it (alias expansion is bounded)`,
          node.range ? at(lines, node.range[0]) : undefined,
        );
      } else if (depth + height > MAX_YAML_DEPTH) {
        tooDeep(keys, node, `*${clipText(node.source)} nesting the document ${height === Infinity ? 'inside itself' : `${depth + height} levels deep`}`);
      }
      return;
    }
    if (isCollection(node) && depth + 1 > MAX_YAML_DEPTH) {
      tooDeep(keys, node, 'deeper nesting here');
      return;
    }
    const tag = isNode(node) ? node.tag : undefined;
    if (isNode(node) && isRefusedTag(tag)) {
      push(keys, tagMessage(source, node, file), node.range ? tagPosition(lines, source, node) : undefined);
      problems[problems.length - 1]!.tag = true;
    }
    if (isMap(node)) {
      const kept = node.items.filter((pair) => {
        const problem = keyProblem(doc, lines, pair, keys);
        if (problem) {
          push(problem.keys, problem.message, problem.position);
          return false;
        }
        const name = scalarKey(pair.key)!;
        // A tag on a key: refused, but the key is read as written whatever the tag, so its value is judged as well.
        if (isNode(pair.key) && isRefusedTag(pair.key.tag)) {
          push([...keys, name], tagMessage(source, pair.key, file), pair.key.range ? tagPosition(lines, source, pair.key) : undefined);
          problems[problems.length - 1]!.onKey = true;
        }
        // The key as written becomes the key of the value (`null: 1` is the key "null", not "").
        if (isScalar(pair.key) && typeof pair.key.value !== 'string') pair.key.value = name;
        walk(pair.value, [...keys, name], depth + 1);
        return true;
      });
      if (kept.length !== node.items.length) node.items = kept;
      return;
    }
    if (isSeq(node)) {
      node.items.forEach((item, index) => walk(item, [...keys, index], depth + 1));
      return;
    }
    const zeros = leadingZeroProblem(node);
    if (zeros !== null) push(keys, zeros, isNode(node) && node.range ? at(lines, node.range[0]) : undefined);
  };
  walk(doc.contents, [], 0);
  return { errors: problems, fatal };
}

/** A key {@link treeProblems} refuses: the path its error names, what it says, and where. */
interface KeyProblem {
  keys: PropertyKey[];
  message: string;
  position: string | undefined;
}

/**
 * Why the key of `pair`, in the mapping at `keys`, is refused, or `null`: a key that is not a
 * scalar, `__proto__`, `constructor` or `prototype`, or a merge key (a plain `<<`).
 */
function keyProblem(doc: Document, lines: LineCounter, pair: Pair, keys: PropertyKey[]): KeyProblem | null {
  const name = scalarKey(pair.key);
  const position = isNode(pair.key) && pair.key.range ? at(lines, pair.key.range[0]) : undefined;
  if (name === undefined) {
    const kind = isSeq(pair.key) ? 'a list' : isMap(pair.key) ? 'a mapping' : 'an alias';
    return { keys, message: `expected a plain key, found ${kind} used as a key`, position };
  }
  const path = [...keys, name];
  if (FORBIDDEN_KEYS.has(name)) return { keys: path, message: 'this key name is not allowed', position: positionOf(doc, lines, path) };
  if (isScalar(pair.key) && pair.key.type === Scalar.PLAIN && name === '<<') return { keys: path, message: mergeKeyMessage(pair, keys), position };
  return null;
}

/**
 * The error of a merge key (`budget: {<<: *b, max_tool_calls: 3}`): YAML 1.1 merged the
 * mapping an alias names into this one; YAML 1.2 has no merge keys and loopdeck reads none.
 * What works instead: the keys written out, or the alias alone when nothing is added or
 * changed (named with the key that holds the mapping: `budget: *b`).
 */
function mergeKeyMessage(pair: Pair, keys: readonly PropertyKey[]): string {
  const base = 'expected plain keys, found a merge key (<<), which loopdeck does not support (YAML 1.2 has no merge keys): write the keys out';
  if (!isAlias(pair.value)) return base;
  const holder = keys[keys.length - 1];
  const alias = `*${clipText(pair.value.source)}`;
  const example = typeof holder === 'string' ? `${clipText(holder)}: ${alias}` : typeof holder === 'number' ? `- ${alias}` : alias;
  return `${base}, or use the alias alone (${example}) when no key is added or changed`;
}

/** The error of a plain number written with leading zeros (`010`), or `null` for any other node. */
function leadingZeroProblem(node: unknown): string | null {
  if (!isScalar(node) || typeof node.value !== 'number' || node.type !== Scalar.PLAIN || !LEADING_ZERO.test(sourceOf(node))) return null;
  const value = clipText(String(node.value));
  return `expected a number without leading zeros, found ${clipText(sourceOf(node))} (YAML 1.2 reads it as ${value}, YAML 1.1 as octal; write ${value})`;
}

/**
 * Characters YAML 1.2 takes in no file raw, being outside its printable set: the C0 controls
 * but tab, line feed and carriage return, DEL, the C1 controls but NEL, U+FFFE and U+FFFF.
 * The yaml library reads them into values and keys without a word.
 */
const NON_PRINTABLE = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x84\x86-\x9F\uFFFE\uFFFF]/g;

/** The names of the C0 control characters, U+0000 to U+001F. */
const C0_NAMES = ['NUL', 'SOH', 'STX', 'ETX', 'EOT', 'ENQ', 'ACK', 'BEL', 'BS', 'HT', 'LF', 'VT', 'FF', 'CR', 'SO', 'SI', 'DLE', 'DC1', 'DC2', 'DC3', 'DC4', 'NAK', 'SYN', 'ETB', 'CAN', 'EM', 'SUB', 'ESC', 'FS', 'GS', 'RS', 'US'];

/** A character as an error names it: `U+0000 (NUL)`, `U+001B (ESC)`, `U+007F (DEL)`, `U+009B`. */
export function describeCharacter(code: number): string {
  const name = code < 0x20 ? C0_NAMES[code] : code === 0x7f ? 'DEL' : undefined;
  const hex = code.toString(16).toUpperCase().padStart(4, '0');
  return name ? `U+${hex} (${name})` : `U+${hex}`;
}

/** A character as a YAML double-quoted string escapes it: `\x00`, `\x1b`, `\uffff`. */
function yamlEscape(code: number): string {
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * The characters of the text YAML 1.2 takes in no file raw ({@link NON_PRINTABLE}), the first
 * of each line, at their places and the paths that hold them. `keys` is the path of a value
 * that holds one (the schema's word on that value would repeat the problem), `null` for one
 * in a key or a comment.
 */
function nonPrintableProblems(doc: Document, lines: LineCounter, source: string, file: string): Array<{ error: ConfigError; keys: PropertyKey[] | null }> {
  const problems: Array<{ error: ConfigError; keys: PropertyKey[] | null }> = [];
  let lastLine = 0;
  for (const match of source.matchAll(NON_PRINTABLE)) {
    const { line } = linePos(lines, match.index);
    if (line === lastLine) continue;
    lastLine = line;
    const keys = pathAtOffset(doc, match.index);
    const code = match[0].charCodeAt(0);
    const message = `expected printable characters, found ${describeCharacter(code)} written raw (YAML takes no control character but tab and line breaks): remove it (a value that may hold one takes it escaped in double quotes: "${yamlEscape(code)}")`;
    problems.push({ error: new ConfigError(file, dottedPath(keys), message, at(lines, match.index)), keys: inValue(doc, keys, match.index) ? keys : null });
  }
  return problems;
}

/** Whether `offset` lies in the scalar value at `keys` (not in its key, nor in a comment beside it). */
function inValue(doc: Document, keys: Keys, offset: number): boolean {
  const { node, found } = locate(doc, keys);
  return found && isScalar(node) && !!node.range && node.range[0] <= offset && offset < node.range[1];
}

/** The prefix of the tags of the YAML core schema (`!!str` is `tag:yaml.org,2002:str`). */
const STANDARD_TAG = 'tag:yaml.org,2002:';

/**
 * Whether {@link treeProblems} reports `tag` itself: a tag of the core schema (`!!str`) or the
 * non-specific `!`. The parser warns of any other (`!foo`) as a tag it cannot resolve.
 */
function isRefusedTag(tag: string | undefined): boolean {
  return tag !== undefined && (tag.startsWith(STANDARD_TAG) || tag === '!');
}

/** The error of a tag on `node`, naming it as the file writes it. */
function tagMessage(source: string, node: Node, file: string): string {
  const tag = node.tag!;
  const shown = writtenTag(source, node) ?? (tag.startsWith(STANDARD_TAG) ? `!!${tag.slice(STANDARD_TAG.length)}` : tag);
  return `expected a plain YAML value, found the tag ${clipText(shown)} (${fileName(file)} takes no tags: remove it)`;
}

/**
 * The offset of the tag written in front of the node starting at `start` (its range starts
 * after the tag and any anchor: `!!str scriptd`, `!!str &a x`, `&a !!str x`, `[!!str x]`,
 * a tag at the end of the line before its value), or `null` when none is found there.
 */
function tagOffset(source: string, start: number): number | null {
  let end = start;
  for (let word = 0; word < 2; word++) {
    while (end > 0 && /\s/.test(source[end - 1]!)) end--;
    let from = end;
    // A verbatim tag (`!<tag:yaml.org,2002:str>`) may hold commas and brackets.
    const verbatim = source[end - 1] === '>' ? source.lastIndexOf('!<', end) : -1;
    if (verbatim >= 0 && !source.slice(verbatim, end).includes('\n')) from = verbatim;
    else while (from > 0 && !/[\s,[\]{}]/.test(source[from - 1]!)) from--;
    const token = source.slice(from, end);
    if (token.startsWith('!')) return from;
    if (!token.startsWith('&')) return null;
    end = from;
  }
  return null;
}

/** The tag in front of `node` as the file writes it (`!!str`, `!<tag:yaml.org,2002:str>`, `!`), if it can be found. */
function writtenTag(source: string, node: Node): string | undefined {
  const from = node.range ? tagOffset(source, node.range[0]) : null;
  return from === null ? undefined : /^(?:!<[^>\n]*>|![^\s,[\]{}]*)/.exec(source.slice(from, from + 1024))?.[0];
}

/** A tag as written at the start of a text: `!` and what follows up to a blank or a flow indicator. */
const TAG_TOKEN = /^(?:!<[^>\n]*>|![^\s,[\]{}]*)/;

/** The offset of what a tag written at `offset` is on (past the tag and the blanks after it); `offset` when no tag starts there. */
function afterTag(source: string, offset: number): number {
  const tag = TAG_TOKEN.exec(source.slice(offset, offset + 1024))?.[0];
  if (tag === undefined) return offset;
  let at = offset + tag.length;
  while (at < source.length && /\s/.test(source[at]!)) at++;
  return at;
}

/** Whether `offset` is in the source of a key of some mapping of the document. */
function isKeyAt(doc: Document, offset: number): boolean {
  const walk = (node: unknown): boolean => {
    if (isMap(node)) return node.items.some((pair) => (isNode(pair.key) && !!pair.key.range && pair.key.range[0] <= offset && offset < pair.key.range[1]) || walk(pair.key) || walk(pair.value));
    if (isSeq(node)) return node.items.some(walk);
    return false;
  };
  return walk(doc.contents);
}

/** `line:column` of the tag in front of a node ({@link tagOffset}), else of the node. */
function tagPosition(lines: LineCounter, source: string, node: Node): string {
  const start = node.range![0];
  return at(lines, tagOffset(source, start) ?? start);
}

// ---------------------------------------------------------------------------------------
// YAML parser errors and warnings

/** Most characters of a message of the YAML parser an error repeats (some quote the source). */
const MAX_PARSER_MESSAGE_CHARS = 160;

function describeYamlProblem(doc: Document, lines: LineCounter, source: string, problem: YAMLError, file: string): ConfigError {
  const offset = problem.pos[0];
  const keys = pathAtOffset(doc, offset);
  const first = clipText(problem.message.split('\n')[0] ?? problem.message, MAX_PARSER_MESSAGE_CHARS);
  let message: string;
  switch (problem.code) {
    case 'DUPLICATE_KEY': {
      const name = keys[keys.length - 1];
      // The first pair of that key in the mapping that holds this one (which may itself sit
      // in an earlier block of a key written twice: a path of names would lead elsewhere).
      const step = chainAt(doc, offset).at(-1);
      const container = step?.node;
      const earlier: unknown = isMap(container) ? container.items.find((pair) => sameKey(pair.key, container.items[step!.index]!.key))?.key : undefined;
      const where = isNode(earlier) && earlier.range && earlier.range[0] !== offset ? ` at ${at(lines, earlier.range[0])}` : '';
      message = `${first}: expected ${quoted(String(name))} once, found it again (first${where})`;
      break;
    }
    case 'MULTIPLE_DOCS':
      return new ConfigError(
        file,
        null,
        'expected one YAML document, found a second one starting here (a line --- or ... ends the first; loopdeck reads a single document, so remove the separator or split the file)',
        at(lines, offset),
      );
    case 'TAG_RESOLVE_FAILED': {
      const tag = TAG_TOKEN.exec(source.slice(offset, offset + 1024))?.[0];
      message = tag
        ? `expected a plain YAML value, found the tag ${clipText(tag)} (${fileName(file)} takes no tags: remove it)`
        : `expected a plain YAML value: ${first}`;
      // Named by the value or key the tag is on (an item of a flow list: `[x, !foo y]` is [1]).
      return new ConfigError(file, dottedPath(pathAtOffset(doc, afterTag(source, offset))), message, at(lines, offset));
    }
    default:
      return new ConfigError(file, dottedPath(pathAtOffset(doc, offset, source)), `invalid YAML: ${first}`, at(lines, offset));
  }
  return new ConfigError(file, dottedPath(keys), message, at(lines, offset));
}

// ---------------------------------------------------------------------------------------
// zod issues

interface ZodDefLike {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  valueType?: z.ZodType;
  values?: unknown[];
  getter?: () => z.ZodType;
}

function defOf(schema: z.ZodType): ZodDefLike {
  return (schema as unknown as { _zod: { def: ZodDefLike } })._zod.def;
}

/** Peels defaults, optionals, pipes and unions down to the schemas that decide a value's shape. */
function unwrap(schema: z.ZodType, raw: unknown): z.ZodType[] {
  const def = defOf(schema);
  switch (def.type) {
    case 'default':
    case 'prefault':
    case 'optional':
    case 'nullable':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return def.innerType ? unwrap(def.innerType, raw) : [schema];
    case 'pipe':
      return def.in ? unwrap(def.in, raw) : [schema];
    case 'lazy':
      return def.getter ? unwrap(def.getter(), raw) : [schema];
    case 'union': {
      let options = def.options ?? [];
      const tag = def.discriminator;
      if (tag && raw !== null && typeof raw === 'object' && tag in raw) {
        const value = (raw as Record<string, unknown>)[tag];
        const matching = options.filter((option) => {
          const field = defOf(option).shape?.[tag];
          return field !== undefined && (defOf(field).values ?? []).includes(value);
        });
        if (matching.length > 0) options = matching;
      }
      return options.flatMap((option) => unwrap(option, raw));
    }
    default:
      return [schema];
  }
}

/** `raw` with the value at `keys` (inside mappings and lists it has) replaced by `value`; `raw` itself is not changed. */
function withValueAt(raw: unknown, keys: Keys, value: unknown): unknown {
  if (keys.length === 0) return value;
  if (raw === null || typeof raw !== 'object') return raw;
  const [key, ...rest] = keys;
  const copy = (Array.isArray(raw) ? [...(raw as unknown[])] : { ...(raw as Record<PropertyKey, unknown>) }) as Record<PropertyKey, unknown>;
  copy[key!] = withValueAt(copy[key!], rest, value);
  return copy;
}

function valueAt(raw: unknown, keys: Keys): unknown {
  let current = raw;
  for (const key of keys) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** The keys a mapping may have at `keys`, read from the schema (every branch of a union). */
function allowedKeysAt(schema: z.ZodType, raw: unknown, keys: Keys): string[] {
  let candidates = unwrap(schema, raw);
  keys.forEach((key, index) => {
    const here = valueAt(raw, keys.slice(0, index + 1));
    candidates = candidates.flatMap((candidate) => {
      const def = defOf(candidate);
      const next =
        def.type === 'object' ? def.shape?.[String(key)] : def.type === 'array' ? def.element : def.type === 'record' ? def.valueType : undefined;
      return next ? unwrap(next, here) : [];
    });
  });
  return [...new Set(candidates.flatMap((candidate) => Object.keys(defOf(candidate).shape ?? {})))];
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  object: 'a mapping',
  record: 'a mapping',
  map: 'a mapping',
  array: 'a list',
  tuple: 'a list',
  bigint: 'an integer',
  null: 'an empty value',
};

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

type RawIssue = z.core.$ZodRawIssue;

/** What a value was, in its source spelling when the path leads to a scalar in the document. */
function foundAt(doc: Document, keys: Keys, input: unknown): string {
  const { node, found } = locate(doc, keys);
  // Only the node of this value: a path inside a union's branch is relative to the union.
  const same = input === undefined || Object.is(node && isScalar(node) ? node.value : undefined, input);
  if (found && same && isScalar(node) && node.type === Scalar.PLAIN && typeof node.value !== 'string' && node.value !== null) {
    return clipText(sourceOf(node));
  }
  return describeValue(input);
}

/**
 * `message` with the number its "found …" names quoted as the file writes it, where the
 * parsed value reads otherwise: `1e400` (read as infinity, `.inf`), `99999999999999999999`
 * (`100000000000000000000`), `9007199254740993` (`9007199254740992`: past what a number holds
 * exactly), `0x10` (`16`). A schema's own message sees the parsed value only; the text as
 * written is what the user finds in the file.
 */
function foundAsWritten(doc: Document, keys: Keys, message: string): string {
  const { node: at, found } = locate(doc, keys);
  const node = isAlias(at) ? at.resolve(doc) : at;
  if (!found || !isScalar(node) || typeof node.value !== 'number') return message;
  const parsed = `found ${describeValue(node.value)}`;
  const written = `found ${clipText(sourceOf(node))}`;
  // Only the whole value: "found 1" is not the start of "found 10".
  for (let index = message.indexOf(parsed); index >= 0; index = message.indexOf(parsed, index + 1)) {
    const next = message[index + parsed.length];
    if (next === undefined || /[\s,;)]/.test(next)) return `${message.slice(0, index)}${written}${message.slice(index + parsed.length)}`;
  }
  return message;
}

/** `"   " (only blanks)` when the file's value at `keys` is a string of blanks only (the schema trims it to `""` before it checks), else `undefined`. */
function blanksAt(doc: Document, keys: Keys): string | undefined {
  const { node, found } = locate(doc, keys);
  if (!found || !isScalar(node) || typeof node.value !== 'string' || node.value === '' || node.value.trim() !== '') return undefined;
  return `${describeValue(node.value)} (only blanks)`;
}

/** What a union takes, from its branches: "a string or a mapping", "one of a, b or a list". */
function unionForms(issue: RawIssue): string {
  const inst = (issue as unknown as { inst?: z.ZodType }).inst;
  const options = inst ? (defOf(inst).options ?? []) : [];
  const forms = options.map((option) => {
    const def = defOf(peel(option));
    if (def.type === 'enum' || def.type === 'literal') return (def.values ?? Object.values((def as { entries?: object }).entries ?? {})).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
    if (def.type === 'object') return `{ ${Object.keys(def.shape ?? {}).join(', ')} }`;
    return TYPE_NAMES[def.type] ?? def.type;
  });
  return forms.length > 0 ? orList([...new Set(forms)]) : 'one of the allowed forms';
}

/** The bounds zod keeps on a number schema (`z.int().positive()` has `format: 'safeint'`, `exclusiveMinimum: 0`). */
interface NumberBag {
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

function bagOf(schema: unknown): NumberBag | undefined {
  const zod = (schema as { _zod?: { def?: { type?: string }; bag?: NumberBag } } | undefined)?._zod;
  return zod?.def?.type === 'number' ? (zod.bag ?? {}) : undefined;
}

/**
 * What an integer schema takes, in words, from its bounds: "a positive integer", "an integer
 * >= 0", "an integer from 1 to 1000", "an integer". `undefined` for a schema that takes
 * fractions too (its messages say "a number").
 */
function integerForm(bag: NumberBag | undefined): string | undefined {
  if (!bag || !takesIntegersOnly(bag)) return undefined;
  const real = (n: number | undefined) => (n !== undefined && Number.isFinite(n) && Math.abs(n) < Number.MAX_SAFE_INTEGER ? n : undefined);
  // Integers only: `> n` is `>= n + 1`, `< n` is `<= n - 1`.
  const lows = [real(bag.minimum), real(bag.exclusiveMinimum) === undefined ? undefined : bag.exclusiveMinimum! + 1].filter((n): n is number => n !== undefined);
  const highs = [real(bag.maximum), real(bag.exclusiveMaximum) === undefined ? undefined : bag.exclusiveMaximum! - 1].filter((n): n is number => n !== undefined);
  const low = lows.length > 0 ? Math.max(...lows) : undefined;
  const high = highs.length > 0 ? Math.min(...highs) : undefined;
  if (low !== undefined && high !== undefined) return `an integer from ${low} to ${high}`;
  if (low === 1) return 'a positive integer';
  if (low !== undefined) return `an integer >= ${low}`;
  if (high !== undefined) return `an integer <= ${high}`;
  return 'an integer';
}

/** Whether a number schema takes whole numbers only (`z.int()` and its sized forms). */
function takesIntegersOnly(bag: NumberBag): boolean {
  return bag.format === 'safeint' || bag.format === 'int32' || bag.format === 'uint32';
}

/** One end of the values a number schema takes. */
interface Bound {
  value: number;
  inclusive: boolean;
}

/** The tighter of an inclusive and an exclusive bound on one side (`low`: the larger one), or `undefined` when the schema sets neither. */
function tighterBound(inclusive: number | undefined, exclusive: number | undefined, side: 'low' | 'high'): Bound | undefined {
  const bounds: Bound[] = [
    ...(inclusive === undefined ? [] : [{ value: inclusive, inclusive: true }]),
    ...(exclusive === undefined ? [] : [{ value: exclusive, inclusive: false }]),
  ];
  const sign = side === 'low' ? 1 : -1;
  // On a tie the exclusive bound is the tighter one.
  return bounds.sort((a, b) => sign * (b.value - a.value) || Number(a.inclusive) - Number(b.inclusive))[0];
}

/**
 * What a number schema takes with both its ends named, for a value past them (`1e400`, read
 * as infinity; an integer past 2^53 - 1, which a number does not hold exactly): "an integer
 * from 1 to 9007199254740991", "a number from 0 to 2", "a number > 0 and <= 1". An end the
 * schema leaves open is the largest a value of its kind can be: Number.MAX_SAFE_INTEGER for
 * an integer (zod's own bound), Number.MAX_VALUE for a number (a larger one reads as infinity).
 */
function rangeForm(bag: NumberBag): string {
  const integer = takesIntegersOnly(bag);
  const most = integer ? Number.MAX_SAFE_INTEGER : Number.MAX_VALUE;
  const low = tighterBound(bag.minimum, bag.exclusiveMinimum, 'low') ?? { value: -most, inclusive: true };
  const high = tighterBound(bag.maximum, bag.exclusiveMaximum, 'high') ?? { value: most, inclusive: true };
  // Integers only: `> n` is `>= n + 1`, `< n` is `<= n - 1`.
  if (integer) return `an integer from ${low.inclusive ? low.value : low.value + 1} to ${high.inclusive ? high.value : high.value - 1}`;
  if (low.inclusive && high.inclusive) return `a number from ${low.value} to ${high.value}`;
  return `a number ${low.inclusive ? '>=' : '>'} ${low.value} and ${high.inclusive ? '<=' : '<'} ${high.value}`;
}

/** The number schemas at `keys`: a bound check's issue (`too_small`) does not carry its schema, so it is found by its path. */
function bagsAt(context: IssueContext | undefined, keys: Keys): NumberBag[] {
  if (!context) return [];
  return schemasAt(context.schema, context.raw, keys).flatMap((schema) => bagOf(schema) ?? []);
}

/**
 * The integer form of the number schema at `keys`. `undefined` when the path leads to no
 * single integer schema.
 */
function integerFormAt(context: IssueContext | undefined, keys: Keys): string | undefined {
  const forms = new Set(bagsAt(context, keys).map((bag) => integerForm(bag)));
  return forms.size === 1 ? [...forms][0] : undefined;
}

/** The {@link rangeForm} of the single number schema at `keys`, else of `fallback`. */
function rangeFormAt(context: IssueContext | undefined, keys: Keys, fallback: NumberBag): string {
  const forms = new Set(bagsAt(context, keys).map(rangeForm));
  return forms.size === 1 ? [...forms][0]! : rangeForm(fallback);
}

/** Whether `value` is a number no finite bound admits: `.inf`, `-.inf`, or one written too large to hold (`1e400`). */
function isInfinite(value: unknown): value is number {
  return typeof value === 'number' && !Number.isNaN(value) && !Number.isFinite(value);
}

/** The schema and the plain document an issue is about: what turns a bound into words. */
interface IssueContext {
  schema: z.ZodType;
  raw: unknown;
}

/** Messages for zod's built-in issues: "expected …, found …", with the nearest allowed value. */
function issueMessage(doc: Document, issue: RawIssue, context?: IssueContext): string {
  const keys = (issue.path ?? []) as PropertyKey[];
  const input = issue.input;
  const found = () => (input === undefined ? 'nothing (this key is required)' : foundAt(doc, keys, input));
  switch (issue.code) {
    case 'invalid_type': {
      const bag = issue.expected === 'number' || issue.expected === 'int' ? bagOf((issue as { inst?: unknown }).inst) : undefined;
      // Past every bound (zod takes no infinity): what the schema takes, from end to end.
      if (bag && isInfinite(input)) return `expected ${rangeForm(bag)}, found ${found()}`;
      const integer = integerForm(bag);
      const expected = integer ?? TYPE_NAMES[String(issue.expected)] ?? String(issue.expected);
      if (input === undefined) return `expected ${expected}, found nothing (this key is required)`;
      return `expected ${expected}, found ${found()}`;
    }
    case 'too_small':
    case 'too_big': {
      const small = issue.code === 'too_small';
      const bound = Number(small ? issue.minimum : issue.maximum);
      if (issue.origin === 'array' || issue.origin === 'set') {
        const count = Array.isArray(input) ? input.length : 0;
        return `expected ${small ? 'at least' : 'at most'} ${plural(bound, 'item')}, found ${count}`;
      }
      if (issue.origin === 'string') {
        if (small && bound === 1) return `expected a non-empty string, found ${blanksAt(doc, keys) ?? found()}`;
        return `expected ${small ? 'at least' : 'at most'} ${plural(bound, 'character')}, found ${found()}`;
      }
      // zod's own bound of every integer (Number.MAX_SAFE_INTEGER): the schema's range, end to end.
      if (issue.origin === 'int') return `expected ${rangeFormAt(context, keys, { format: 'safeint' })}, found ${found()}`;
      const integer = issue.origin === 'number' ? integerFormAt(context, keys) : undefined;
      if (integer) return `expected ${integer}, found ${found()}`;
      const op = small ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
      return `expected a number ${op} ${bound}, found ${found()}`;
    }
    case 'invalid_value': {
      const values = issue.values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
      const expected = values.length === 1 ? values[0] : `one of ${values.join(', ')}`;
      const near = typeof input === 'string' ? nearestKey(input, values) : undefined;
      return `expected ${expected}, found ${found()}${near ? `; did you mean "${near}"?` : ''}`;
    }
    case 'invalid_format': {
      const pattern = (issue as { pattern?: string }).pattern;
      return `expected ${issue.format === 'regex' && pattern ? `a string matching ${clipText(pattern)}` : `a string of format ${issue.format}`}, found ${found()}`;
    }
    case 'not_multiple_of':
      return `expected a multiple of ${String(issue.divisor)}, found ${found()}`;
    case 'invalid_union':
      return `expected ${unionForms(issue)}, found ${found()}`;
    case 'invalid_key':
      return `expected keys of the allowed form, found ${found()}`;
    default:
      // A refinement without a message of its own: still "expected …, found …", never zod's words.
      return `expected a valid value, found ${found()}`;
  }
}

/** A zod issue placed at its absolute path (an issue inside a union branch is relative to the union). */
type PlacedIssue = z.core.$ZodIssue & { path: PropertyKey[] };

/** Peels defaults, optionals, pipes and lazies, but not unions: the schema as written at a path. */
function peel(schema: z.ZodType): z.ZodType {
  const def = defOf(schema);
  if (['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch', 'nonoptional'].includes(def.type) && def.innerType) return peel(def.innerType);
  if (def.type === 'pipe' && def.in) return peel(def.in);
  if (def.type === 'lazy' && def.getter) return peel(def.getter());
  return schema;
}

/** The schemas that may hold the value at `keys` (unions along the way contribute every branch), peeled but not unwrapped. */
function schemasAt(schema: z.ZodType, raw: unknown, keys: Keys): z.ZodType[] {
  if (keys.length === 0) return [peel(schema)];
  const parents = keys.slice(0, -1).reduce<z.ZodType[]>((candidates, key, index) => {
    const here = valueAt(raw, keys.slice(0, index + 1));
    return candidates.flatMap((candidate) => {
      const next = childSchema(candidate, key);
      return next ? unwrap(next, here) : [];
    });
  }, unwrap(schema, raw));
  const last = keys[keys.length - 1]!;
  return parents.flatMap((candidate) => {
    const next = childSchema(candidate, last);
    return next ? [peel(next)] : [];
  });
}

function childSchema(schema: z.ZodType, key: PropertyKey): z.ZodType | undefined {
  const def = defOf(schema);
  return def.type === 'object' ? def.shape?.[String(key)] : def.type === 'array' ? def.element : def.type === 'record' ? def.valueType : undefined;
}

/** The keys of an object schema a mapping must have (neither optional nor defaulted). */
function requiredKeys(schema: z.ZodType): string[] {
  const shape = defOf(schema).shape ?? {};
  return Object.keys(shape).filter((key) => (shape[key] as unknown as { _zod: { optin?: string } })._zod.optin !== 'optional');
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** `a`, `a or b`, `a, b or c` */
export function orList(words: readonly string[], last = 'or'): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} ${last} ${words[words.length - 1]}`;
}

/**
 * The issues of a union that rejected a mapping, placed where they belong. zod reports a
 * failed union as one issue holding every branch's issues; a person wrote one of the
 * branches, so the branch is picked by the keys only it requires (`command` for a command
 * check, `signal` for a signal check) and its own issues are reported, at their own paths.
 * A mapping with the keys of two branches, or of none, is one error at the mapping that
 * names those keys. `undefined` when the union has no branch for a mapping (its own message
 * then says what it takes).
 */
function unionBranchIssues(schema: z.ZodType, raw: unknown, issue: PlacedIssue & { code: 'invalid_union' }): PlacedIssue[] | undefined {
  const value = valueAt(raw, issue.path);
  if (!isMapping(value) || issue.errors.length === 0) return undefined;
  const union = schemasAt(schema, raw, issue.path).find((candidate) => {
    const def = defOf(candidate);
    return def.type === 'union' && def.options?.length === issue.errors.length;
  });
  const options = union ? (defOf(union).options ?? []).map(peel) : [];
  const objects = options.flatMap((option, index) => (defOf(option).type === 'object' ? [{ option, index }] : []));
  if (objects.length === 0) return undefined;
  const place = (index: number) => issue.errors[index]!.map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }) as PlacedIssue);
  if (objects.length === 1) return place(objects[0]!.index);
  // Several mapping forms: each is told apart by the keys it alone requires.
  const shapes = objects.map(({ option }) => Object.keys(defOf(option).shape ?? {}));
  const own = objects.map(({ option }, i) => requiredKeys(option).filter((key) => shapes.every((shape, j) => j === i || !shape.includes(key))));
  const present = Object.keys(value);
  const chosen = own.flatMap((keys, i) => (keys.some((key) => present.includes(key)) ? [i] : []));
  if (chosen.length === 1) {
    // An unknown key of the form meant is told the keys of that form, not of every form.
    const keys = shapes[chosen[0]!]!;
    return place(objects[chosen[0]!]!.index).map((inner) => (inner.code === 'unrecognized_keys' && inner.path.length === issue.path.length ? { ...inner, allowed: keys } : inner));
  }
  const names = own.map((keys) => keys[0]).filter((key): key is string => key !== undefined);
  const allowed = [...new Set(shapes.flat())];
  const unknown = present.filter((key) => !allowed.includes(key));
  const unknownKeys = unknown.length > 0 ? [{ code: 'unrecognized_keys', path: issue.path, keys: unknown, message: '', input: value } as PlacedIssue] : [];
  if (chosen.length > 1) {
    const found = chosen.map((i) => own[i]!.find((key) => present.includes(key))!);
    return [{ code: 'custom', path: issue.path, message: `expected either ${orList(names)}, not both, found ${orList(found, 'and')}`, input: value } as PlacedIssue, ...unknownKeys];
  }
  const found = `neither (${present.length === 0 ? 'an empty mapping' : `only ${orList(present.map((key) => clipText(key)), 'and')}`})`;
  return [
    { code: 'custom', path: issue.path, message: `expected ${orList(names)}, found ${found}`, input: value } as PlacedIssue,
    ...unknownKeys,
  ];
}

/**
 * Every issue at its deepest path: a union's issue is replaced by the issues of the branch
 * that was meant. A value past zod's own bound of every integer (`too_big` of origin `int`)
 * and past the schema's tighter one is one problem: the schema's issue, which names its bound,
 * stands for both.
 */
function placedIssues(schema: z.ZodType, raw: unknown, issues: readonly z.core.$ZodIssue[]): PlacedIssue[] {
  const placed = unionsPlaced(schema, raw, issues);
  const bounded = new Set(placed.flatMap((issue) => (isBoundIssue(issue) && issue.origin !== 'int' ? [dottedPath(issue.path)] : [])));
  return placed.filter((issue) => !(isBoundIssue(issue) && issue.origin === 'int' && bounded.has(dottedPath(issue.path))));
}

/** Whether an issue is a number's bound check (`too_big`, `too_small`). */
function isBoundIssue(issue: PlacedIssue): issue is PlacedIssue & { code: 'too_big' | 'too_small'; origin: string } {
  return issue.code === 'too_big' || issue.code === 'too_small';
}

/** Every issue at its deepest path, a union's issue replaced by the issues of the branch that was meant. */
function unionsPlaced(schema: z.ZodType, raw: unknown, issues: readonly z.core.$ZodIssue[]): PlacedIssue[] {
  return issues.flatMap((issue) => {
    const placed = { ...issue, path: [...issue.path] } as PlacedIssue;
    if (placed.code !== 'invalid_union') return [placed];
    const inner = unionBranchIssues(schema, raw, placed as PlacedIssue & { code: 'invalid_union' });
    return inner ? unionsPlaced(schema, raw, inner) : [placed];
  });
}

/** Keys listed in full in an unknown key's error; past this many, the first ones and how many more. */
const LISTED_KEYS = 24;

/**
 * What an unknown key with no near match is told: the keys its mapping takes (`; expected
 * one of: turns, tool_calls, …`), or nothing when the schema names none.
 */
function expectedKeys(allowed: readonly string[]): string {
  if (allowed.length === 0) return '';
  const shown = allowed.slice(0, LISTED_KEYS).join(', ');
  return `; expected one of: ${shown}${allowed.length > LISTED_KEYS ? `, … (${allowed.length - LISTED_KEYS} more)` : ''}`;
}

/**
 * The schema's issues as errors at their places. `skip`: paths of values already reported
 * (a YAML-level problem): issues about them are left out, unknown keys never.
 */
function issueErrors(
  doc: Document,
  lines: LineCounter,
  schema: z.ZodType,
  raw: unknown,
  issues: z.core.$ZodIssue[],
  file: string,
  skip: (keys: Keys) => boolean = () => false,
): ConfigError[] {
  const unknownKey = (mapping: Keys, name: string, allowed: readonly string[]): ConfigError => {
    const keys = [...mapping, name];
    const near = nearestKey(name, allowed);
    const message = `unknown key ${quoted(name)}${near ? `; did you mean "${near}"?` : expectedKeys(allowed)}`;
    return new ConfigError(file, dottedPath(keys), message, keyPositionOf(doc, lines, keys));
  };
  /**
   * The errors of the mapping at `mapping` checked as the branch its misspelt tag is nearest
   * to (`kind: scriptd` as `scripted`), each saying so; `undefined` when no tag is near.
   */
  const guessedBranchErrors = (mapping: Keys, tag: string, value: Record<string, unknown>): ConfigError[] | undefined => {
    const written = value[tag];
    if (typeof written !== 'string') return undefined;
    const union = schemasAt(schema, raw, mapping).find((candidate) => defOf(candidate).discriminator === tag);
    const options = union ? (defOf(union).options ?? []) : [];
    // The tag values a branch takes (`z.literal('scripted')`: scripted).
    const tagsOf = (option: z.ZodType): unknown[] => {
      const field = defOf(option).shape?.[tag];
      return field ? (defOf(field).values ?? []) : [];
    };
    const near = nearestKey(written, options.flatMap(tagsOf).filter((v): v is string => typeof v === 'string'));
    const branch = near === undefined ? undefined : options.find((option) => tagsOf(option).includes(near));
    if (near === undefined || branch === undefined) return undefined;
    // The branch alone, not the whole document: checks across sections (files, programs)
    // report this section's problems themselves, once, saying how it was read.
    const patched = withValueAt(raw, [...mapping, tag], near);
    const result = branch.safeParse(valueAt(patched, mapping), { error: (inner) => issueMessage(doc, { ...inner, path: [...mapping, ...(inner.path ?? [])] }, { schema, raw: patched }) });
    if (result.success) return [];
    const own = result.error.issues.flatMap((inner) => (inner.path[0] === tag ? [] : [{ ...inner, path: [...mapping, ...inner.path] } as z.core.$ZodIssue]));
    const note = checkedAsNote(mapping, tag, near);
    return issueErrors(doc, lines, schema, patched, own, file, skip).map((e) => new ConfigError(e.file, e.path, withNote(e.expected, note), e.position));
  };
  return placedIssues(schema, raw, issues).flatMap((issue) => {
    if (issue.code !== 'unrecognized_keys' && skip(issue.path)) return [];
    if (issue.code === 'unrecognized_keys') {
      const allowed = ((issue as { allowed?: readonly string[] }).allowed ?? allowedKeysAt(schema, raw, issue.path)).filter((k) => !issue.keys.includes(k));
      return issue.keys.map((name) => unknownKey(issue.path, name, allowed));
    }
    // A message of a schema's own that says a value is missing: say the key is required.
    const missing = / found nothing$/.test(issue.message) && !locate(doc, issue.path).found;
    const message = foundAsWritten(doc, issue.path, missing ? `${issue.message} (this key is required)` : issue.message);
    const error = new ConfigError(file, dottedPath(issue.path), message, positionOf(doc, lines, issue.path));
    const discriminator = (issue as { discriminator?: unknown }).discriminator;
    if (issue.code !== 'invalid_union' || typeof discriminator !== 'string' || issue.path[issue.path.length - 1] !== discriminator) return [error];
    // No branch of a discriminated union was chosen (its tag is missing or unknown), so zod
    // checks no keys of the mapping: name those that no branch allows (a misspelt `kind`).
    const mapping = issue.path.slice(0, -1);
    const value = valueAt(raw, mapping);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return [error];
    // A misspelt tag with a near match: the mapping is checked as the branch it names, so
    // its other problems are listed in this pass too, not after the tag is fixed.
    const guessed = guessedBranchErrors(mapping, discriminator, value as Record<string, unknown>);
    if (guessed !== undefined) return [error, ...guessed];
    const present = Object.keys(value);
    const allowed = allowedKeysAt(schema, raw, mapping);
    const unknown = present.filter((name) => !allowed.includes(name));
    const free = allowed.filter((name) => !present.includes(name));
    return [error, ...unknown.map((name) => unknownKey(mapping, name, free))];
  });
}

/** What an error in a section read as the branch its misspelt tag is nearest to says of it: `agent checked as kind: scripted`. */
export function checkedAsNote(mapping: Keys, tag: string, value: string): string {
  return `${dottedPath(mapping)} checked as ${tag}: ${value}`;
}

/** `message` with `note` added: inside the closing parenthesis it ends with, else in one of its own. */
export function withNote(message: string, note: string): string {
  return message.endsWith(')') ? `${message.slice(0, -1)}; ${note})` : `${message} (${note})`;
}

/** A problem found by a check of its own, at its path in the document. */
export interface YamlProblem {
  path: PropertyKey[];
  message: string;
}

/** Options of {@link parseYamlWith}. */
export interface YamlCheckOptions {
  /**
   * Checks to run on the plain document when the schema rejects it (refinements of the
   * schema, which run only on a valid value, are then skipped): their problems are reported
   * with the schema's, so one pass lists them all. Must accept any value. A ConfigError is an
   * error of another file (one the document names), listed after those of this one.
   */
  whenInvalid?: (raw: unknown) => Array<YamlProblem | ConfigError>;
  /**
   * Top-level keys the file's reader ignores (user extension fields, e.g. `/^x-/` for
   * `x-common: &timeout 60s`): dropped from the document before the schema sees it, so they
   * are neither unknown keys nor part of the value returned. Aliases to their values
   * elsewhere still expand.
   */
  extensionKeys?: RegExp;
}

/**
 * Parses YAML safely and validates it with a zod schema.
 *
 * Only YAML 1.2 is read, one document per file (a second one after `---` is an error, not
 * ignored). Nesting deeper than {@link MAX_YAML_DEPTH} levels is refused from the text before
 * the parser runs (the parser recurses per level), and again on the tree once aliases are
 * expanded. Syntax errors, duplicate keys and warnings (unknown tags) are errors and never
 * printed; `__proto__`, `constructor` and `prototype` keys, merge keys, keys that are not
 * scalars, numbers with leading zeros, raw control characters and alias expansion past
 * {@link MAX_ALIAS_EXPANSION} nodes are refused before the document becomes an object.
 * Unknown keys name the nearest allowed key; type errors say what was found, a number as it
 * is written. Keys and values quoted in errors are cut to a bounded length.
 *
 * @param file the name used in every error
 * @throws ConfigErrors with one ConfigError per problem: file, YAML path, `line:column`,
 *   what was expected and what was found
 */
export function parseYamlWith<S extends z.ZodType>(schema: S, source: string, file: string, options: YamlCheckOptions = {}): z.output<S> {
  const nesting = measureNesting(source, MAX_YAML_DEPTH);
  if (nesting.depth > MAX_YAML_DEPTH) throw new ConfigErrors([nestingError(source, nesting.offset, file, 'deeper nesting here')]);
  try {
    return parseChecked(schema, source, file, options);
  } catch (error) {
    // The text check counts the constructs that nest; should the parser still run out of
    // stack on some other shape, that is the same limit, not a crash.
    if (!isStackOverflow(error)) throw error;
    throw new ConfigErrors([nestingError(source, measureNesting(source).offset, file, 'nesting too deep for the parser to read')]);
  }
}

/** The error of a document nested past {@link MAX_YAML_DEPTH}, placed at `offset`. */
function nestingError(source: string, offset: number, file: string, found: string): ConfigError {
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return new ConfigError(file, null, `${DEPTH_EXPECTED}, found ${found} (the limit keeps the parser within its stack)`, `${line}:${column}`);
}

/**
 * Problems of the YAML parser that leave a document whose other parts are still read as
 * written: a duplicate key (the last value is kept), a second document (the first is read),
 * and warnings (an unknown tag: the value is kept as text). Any other error of the parser
 * means the text did not parse, and only the parser's errors are reported.
 */
const RECOVERABLE_YAML_ERRORS = new Set(['DUPLICATE_KEY', 'MULTIPLE_DOCS']);

/** Whether `path` (dotted) is one of `under` or inside one of them. */
function isUnder(path: string, under: ReadonlySet<string>): boolean {
  for (const top of under) if (path === top || path.startsWith(`${top}.`) || path.startsWith(`${top}[`)) return true;
  return false;
}

/**
 * One pass over a document: the parser's problems, then those of the tree, then the
 * schema's, all listed together in file order. A problem of the YAML level stops the pass
 * only when nothing can be built from the text (a syntax error, runaway aliases, nesting
 * too deep, a %YAML directive of another version); otherwise the rest of the document is
 * checked against the schema, and the schema's errors about a value already reported (a
 * tagged value, a number with leading zeros) are left out.
 */
function parseChecked<S extends z.ZodType>(schema: S, source: string, file: string, options: YamlCheckOptions): z.output<S> {
  const lines = new LineCounter();
  const doc = parseDocument(source, {
    lineCounter: lines,
    uniqueKeys: true,
    strict: true,
    prettyErrors: false,
    // Any level but 'silent' reports a second document (MULTIPLE_DOCS) instead of dropping
    // it; parseDocument itself never prints (only yaml's parse() logs warnings).
    logLevel: 'error',
    version: '1.2',
  });
  const yamlProblems = [...doc.errors, ...doc.warnings];
  const early: ConfigError[] = yamlProblems.map((problem) => describeYamlProblem(doc, lines, source, problem, file));
  // Values reported already: the schema's errors about them would repeat them.
  const reportedAt = new Set<string>();
  // A tag on a value that is the same without it (`!!str scriptd`) is wrong alone: the schema's word on the value stands.
  const alike = taggedAlikePaths(doc);
  for (const problem of yamlProblems) {
    // A duplicated key's last value is read as written: the schema's word on it stands.
    if (problem.code === 'MULTIPLE_DOCS' || problem.code === 'DUPLICATE_KEY') continue;
    if (problem.code === 'TAG_RESOLVE_FAILED') {
      // A tag on a key leaves its value as written; one on a value that reads the same without it is wrong alone.
      const on = afterTag(source, problem.pos[0]);
      const keys = pathAtOffset(doc, on);
      if (keys.length > 0 && !isKeyAt(doc, on) && !alike.has(dottedPath(keys))) reportedAt.add(dottedPath(keys));
      continue;
    }
    const keys = pathAtOffset(doc, problem.pos[0]);
    if (keys.length > 0) reportedAt.add(dottedPath(keys));
  }
  if (doc.errors.some((problem) => !RECOVERABLE_YAML_ERRORS.has(problem.code))) throw new ConfigErrors(inDocumentOrder(early));
  const version = doc.directives?.yaml;
  if (version?.explicit && version.version !== '1.2') {
    const offset = Math.max(0, source.search(/^%YAML/m));
    throw new ConfigErrors([
      new ConfigError(file, null, `expected YAML 1.2, found a %YAML ${version.version} directive (remove it: no, 010 and 1:30 mean other things there)`, at(lines, offset)),
    ]);
  }
  const tree = treeProblems(doc, lines, source, file);
  const unprintable = nonPrintableProblems(doc, lines, source, file);
  // A tag the parser warns of that the tree reports too (`!!float 5`): listed once.
  const listedEarly = new Set(early.map(errorKey));
  for (const { error } of [...tree.errors, ...unprintable]) {
    if (listedEarly.has(errorKey(error))) continue;
    listedEarly.add(errorKey(error));
    early.push(error);
  }
  if (tree.fatal) throw new ConfigErrors(inDocumentOrder(early));
  for (const { keys } of [...tree.errors.filter((e) => !e.onKey && !(e.tag && alike.has(dottedPath(e.keys)))), ...unprintable]) if (keys && keys.length > 0) reportedAt.add(dottedPath(keys));

  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    const offset = source.search(/\*[^\s,\]}]/);
    throw new ConfigErrors([
      ...early,
      new ConfigError(file, null, `cannot expand the document: ${clipText((error as Error).message, MAX_PARSER_MESSAGE_CHARS)}`, offset >= 0 ? at(lines, offset) : undefined),
    ]);
  }
  raw = withoutExtensionKeys(raw, options);
  const parsed = schema.safeParse(raw ?? {}, { error: (issue) => issueMessage(doc, issue, { schema, raw: raw ?? {} }) });
  if (parsed.success && early.length === 0) return parsed.data;
  const issues = parsed.success ? [] : parsed.error.issues;
  // The schema's own refinements do not run on an invalid document: run the checks that can.
  const more = parsed.success ? [] : (options.whenInvalid?.(raw ?? {}) ?? []);
  // A refinement that did run (the rest of the document was valid) reported its problems already.
  const reported = new Set(issues.map((issue) => `${dottedPath(issue.path)}\n${issue.message}`));
  const here = more.flatMap((problem) =>
    problem instanceof ConfigError || reported.has(`${dottedPath(problem.path)}\n${problem.message}`) ? [] : [{ code: 'custom', input: undefined, ...problem } as z.core.$ZodIssue],
  );
  const elsewhere = more.filter((problem): problem is ConfigError => problem instanceof ConfigError);
  const fromSchema = issueErrors(doc, lines, schema, raw ?? {}, [...issues, ...here], file, (keys) => isUnder(dottedPath(keys), reportedAt));
  const listed = new Set([...early, ...fromSchema].map(errorKey));
  const earlier = earlierBlockErrors(doc, lines, schema, file, options).filter((error) => !listed.has(errorKey(error)));
  throw new ConfigErrors([...inDocumentOrder([...early, ...fromSchema, ...earlier]), ...elsewhere]);
}

/**
 * The YAML paths of the tagged values that are the ones they would be without the tag: a
 * quoted or block scalar (`!!str "x"`, `!foo "x"`), a plain one that reads the same untagged
 * (`!!str scriptd`, `!!int 5`; not `!!str 5`, which is 5 untagged), a mapping or list whose
 * tag names its own kind or none of the core schema's (`!!map {…}`, `!foo [x]`). Their tag
 * is an error of its own; the schema's errors about their value are not caused by it.
 */
function taggedAlikePaths(doc: Document): Set<string> {
  const paths = new Set<string>();
  const walk = (node: unknown, keys: PropertyKey[]): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const name = scalarKey(pair.key);
        if (name !== undefined) walk(pair.value, [...keys, name]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => walk(item, [...keys, index]));
    } else if (isScalar(node) && node.tag && keys.length > 0 && Object.is(untaggedValue(node), node.value)) {
      paths.add(dottedPath(keys));
    }
    // A mapping or list is one without its tag when the tag names its own kind (`!!map {…}`), or none of the core schema's (`!foo [x]`, `! {…}`).
    if ((isMap(node) || isSeq(node)) && node.tag && keys.length > 0) {
      const own = isMap(node) ? `${STANDARD_TAG}map` : `${STANDARD_TAG}seq`;
      if (node.tag === own || !node.tag.startsWith(STANDARD_TAG)) paths.add(dottedPath(keys));
    }
  };
  walk(doc.contents, []);
  return paths;
}

/** What a scalar's text reads as without its tag (YAML 1.2's core schema); `undefined` when that cannot be told. */
function untaggedValue(node: Scalar): unknown {
  const source = node.source;
  if (typeof source !== 'string') return undefined;
  if (node.type !== Scalar.PLAIN) return source;
  const alone = parseDocument(source, { version: '1.2' });
  return alone.errors.length === 0 && alone.warnings.length === 0 ? alone.toJS() : undefined;
}

/** The document's value without the top-level keys its reader ignores ({@link YamlCheckOptions.extensionKeys}). */
function withoutExtensionKeys(raw: unknown, options: YamlCheckOptions): unknown {
  const extension = options.extensionKeys;
  if (!extension || !isMapping(raw)) return raw;
  return Object.fromEntries(Object.entries(raw).filter(([key]) => !extension.test(key)));
}

/** What tells two errors of one file apart: where, what path, what message. */
function errorKey(error: ConfigError): string {
  return `${error.position ?? ''}\n${error.path ?? ''}\n${error.message}`;
}

/** One step of a {@link chainAt}: a collection and the index of the item (a mapping's pair) the path goes through. */
interface ChainStep {
  node: YAMLMap | YAMLSeq;
  index: number;
}

/**
 * The collections from the document's root down to the mapping whose key holds `offset`,
 * each with the item the path takes (by source position, so a key written twice leads into
 * the block that holds `offset`, not the one a path of names would find). Empty when no key
 * holds `offset`.
 */
function chainAt(doc: Document, offset: number): ChainStep[] {
  const inside = (node: unknown) => isNode(node) && !!node.range && node.range[0] <= offset && offset < node.range[2];
  const steps: ChainStep[] = [];
  let node: unknown = doc.contents;
  for (;;) {
    if (isMap(node)) {
      const index = indexAt(node.items, offset, (pair) => inside(pair.value) || (isNode(pair.key) && inside(pair.key)));
      if (index < 0) return [];
      steps.push({ node, index });
      const pair = node.items[index]!;
      if (!inside(pair.value)) return steps;
      node = pair.value;
    } else if (isSeq(node)) {
      const index = indexAt(node.items, offset, inside);
      if (index < 0) return [];
      steps.push({ node, index });
      node = node.items[index];
    } else {
      return [];
    }
  }
}

/**
 * A copy of `doc` in which the path of `chain` is the only one: in each mapping on it, the
 * pair it takes stands alone among the pairs of its key (`last` replaces the index of the
 * chain's last step). The document and the collections on the path are copied (as `clone`
 * copies a node: every own property); every other node is shared, and neither document is
 * changed.
 */
function withChain(doc: Document, chain: readonly ChainStep[], last: number): Document {
  const copyOf = <T extends object>(value: T, changes: Partial<T>): T =>
    Object.assign(Object.create(Object.getPrototypeOf(value), Object.getOwnPropertyDescriptors(value)) as T, changes);
  const rebuilt = (depth: number): Node => {
    const { node } = chain[depth]!;
    const index = depth === chain.length - 1 ? last : chain[depth]!.index;
    if (isSeq(node)) {
      const items = [...node.items];
      items[index] = rebuilt(depth + 1);
      return copyOf(node, { items });
    }
    const taken = node.items[index]!;
    const pair = depth === chain.length - 1 ? taken : copyOf(taken, { value: rebuilt(depth + 1) });
    const items = node.items.flatMap((p, i) => (i === index ? [pair] : sameKey(p.key, taken.key) ? [] : [p]));
    return copyOf(node, { items });
  };
  return copyOf(doc, { contents: rebuilt(0) } as Partial<Document>);
}

/** Earlier blocks of duplicated keys checked on their own, at most (each is a copy of the path to it). */
const MAX_EARLIER_BLOCKS = 20;

/** Whether two keys of a mapping are the same key to the parser: scalars by value (`"1"` is not `1`, `0x1` is), anything else by identity. */
function sameKey(a: unknown, b: unknown): boolean {
  return a === b || (isScalar(a) && isScalar(b) && a.value === b.value);
}

/**
 * The schema's errors inside the earlier blocks of a key written more than once in a
 * mapping. The document's object keeps the last block, so the schema sees only that one;
 * each earlier block is checked as if it were the only one (in a copy of the document where
 * it and the blocks around it are the ones kept), and its errors that lie in it (or in what
 * an alias there leads to) are reported at their own lines. So one pass lists everything to
 * fix, whichever block the user keeps, at any depth. At most {@link MAX_EARLIER_BLOCKS}
 * blocks are checked, in file order; past them one error says how many were not.
 */
function earlierBlockErrors(doc: Document, lines: LineCounter, schema: z.ZodType, file: string, options: YamlCheckOptions): ConfigError[] {
  const errors: ConfigError[] = [];
  const checked = new Set<unknown>();
  const done = new Set<number[]>();
  const unchecked: Pair[] = [];
  // The indices of each key's pairs in a mapping, made once per mapping (a file may hold thousands).
  const byKey = new Map<YAMLMap, Map<unknown, number[]>>();
  const indicesOf = (container: YAMLMap, key: unknown): number[] => {
    let keys = byKey.get(container);
    if (!keys) {
      keys = new Map();
      for (const [index, pair] of container.items.entries()) {
        const id = isScalar(pair.key) ? pair.key.value : pair.key;
        const list = keys.get(id);
        if (list) list.push(index);
        else keys.set(id, [index]);
      }
      byKey.set(container, keys);
    }
    return keys.get(isScalar(key) ? key.value : key) ?? [];
  };
  for (const problem of doc.errors) {
    if (problem.code !== 'DUPLICATE_KEY') continue;
    const chain = chainAt(doc, problem.pos[0]);
    const last = chain[chain.length - 1];
    if (!last || !isMap(last.node)) continue;
    const container = last.node;
    const indices = indicesOf(container, container.items[last.index]!.key);
    // Every pair of the key but the last, the one the object keeps, once for all its duplicates.
    if (done.has(indices)) continue;
    done.add(indices);
    for (const index of indices.slice(0, -1)) {
      const pair = container.items[index]!;
      if (checked.has(pair)) continue;
      checked.add(pair);
      if (checked.size > MAX_EARLIER_BLOCKS) {
        unchecked.push(pair);
        continue;
      }
      errors.push(...blockErrors(doc, lines, schema, file, options, withChain(doc, chain, index), pair));
    }
  }
  const first = unchecked[0];
  if (first) {
    const where = isNode(first.key) && first.key.range ? at(lines, first.key.range[0]) : undefined;
    const count = `${unchecked.length} more earlier block${unchecked.length === 1 ? '' : 's'}`;
    errors.push(new ConfigError(file, null, `${count} of keys written twice were not checked on their own (the first ${MAX_EARLIER_BLOCKS} were): remove the duplicates and validate again to see their errors`, where));
  }
  return errors;
}

/** The schema's errors of `variant`, a copy of the document in which `pair` is the block kept, that lie in `pair` or in what an alias there leads to. */
function blockErrors(doc: Document, lines: LineCounter, schema: z.ZodType, file: string, options: YamlCheckOptions, variant: Document, pair: Pair): ConfigError[] {
  let raw: unknown;
  try {
    raw = variant.toJS({ maxAliasCount: 1000 });
  } catch {
    return []; // an alias the document cannot expand is reported for the document itself
  }
  const value = withoutExtensionKeys(raw, options) ?? {};
  const parsed = schema.safeParse(value, { error: (issue) => issueMessage(variant, issue, { schema, raw: value }) });
  if (parsed.success) return [];
  const ranges: Array<readonly [number, number]> = [];
  const from = isNode(pair.key) && pair.key.range ? pair.key.range[0] : -1;
  ranges.push([from, isNode(pair.value) && pair.value.range ? pair.value.range[2] : from]);
  const target = isAlias(pair.value) ? pair.value.resolve(doc) : undefined;
  if (isNode(target) && target.range) ranges.push([target.range[0], target.range[2]]);
  const within = (error: ConfigError) => {
    const offset = error.position === undefined ? -1 : offsetOf(lines, error.position);
    return ranges.some(([start, end]) => offset >= start && offset <= end);
  };
  return issueErrors(variant, lines, schema, value, parsed.error.issues, file).filter(within);
}

/** The offset in the source of a `line:column` position (both from 1). */
function offsetOf(lines: LineCounter, position: string): number {
  const [line = 0, column = 0] = position.split(':').map(Number);
  const start = lines.lineStarts[line - 1];
  return start === undefined ? -1 : start + column - 1;
}

/**
 * `line:column` of the value at a YAML path in a file, by the rule of the schema's errors
 * (the value on its key's line, else the key; a missing key at its deepest existing
 * ancestor), for a check that runs after loading (the workspace folder exists, ...).
 * `undefined` when the file cannot be read or parsed again.
 */
export function positionInFile(file: string, keys: readonly PropertyKey[]): string | undefined {
  try {
    const lines = new LineCounter();
    const doc = parseDocument(readBoundedText(file, MAX_YAML_BYTES), { lineCounter: lines, version: '1.2', logLevel: 'silent' });
    return positionOf(doc, lines, keys);
  } catch {
    return undefined; // the file changed since it was loaded: the error names the path alone
  }
}

/** Errors sorted by `line:column` (those without one keep their place at the end), as a reader meets them. */
function inDocumentOrder(errors: ConfigError[]): ConfigError[] {
  const key = (error: ConfigError) => {
    const [line = Number.MAX_SAFE_INTEGER, column = 0] = error.position ? error.position.split(':').map(Number) : [];
    return { line, column };
  };
  return errors
    .map((error, index) => ({ error, index, ...key(error) }))
    .sort((a, b) => a.line - b.line || a.column - b.column || a.index - b.index)
    .map(({ error }) => error);
}

/**
 * Where a missing file was looked for: `no such file in <absolute folder>`, or, when that
 * folder is missing too, `no such folder <absolute folder> (the nearest existing folder is
 * <ancestor>)`, so the message never suggests the folder is there.
 */
export function missingFileWhere(file: string): string {
  const folder = dirname(resolvePath(file));
  let existing = folder;
  while (!isFolder(existing) && dirname(existing) !== existing) existing = dirname(existing);
  if (existing === folder) return `no such file in ${shownName(folder)}`;
  return `no such file: the folder ${shownName(folder)} does not exist either (the nearest existing folder is ${shownName(existing)})`;
}

function isFolder(folder: string): boolean {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false; // missing or unreadable: look at its parent
  }
}

/**
 * The error of a file that does not exist: `<file>: no such file in <absolute folder>` (see
 * {@link missingFileWhere}); a symbolic link to nothing names its target; an empty name
 * says so.
 */
export function missingFileError(file: string, hint?: string): UnreadableConfigError {
  if (file === '') return new UnreadableConfigError('""', 'expected the name of a file, found an empty name');
  const link = danglingTarget(file);
  const where = link === null ? missingFileWhere(file) : `a symbolic link to ${shownName(link)}, which does not exist`;
  return new UnreadableConfigError(file, `${where}${hint ? `; ${hint}` : ''}`);
}

/** The target of `file` when it is a symbolic link (to nothing, as a missing file is), else `null`. */
function danglingTarget(file: string): string | null {
  try {
    return lstatSync(file).isSymbolicLink() ? readlinkSync(file) : null;
  } catch {
    return null; // not there at all: a missing file, said as such
  }
}

/**
 * Reads at most `maxBytes` of a regular file as UTF-8, without a leading byte order mark.
 * @throws ConfigErrors naming the file alone (no YAML path) when it does not exist, cannot
 *   be read, is not a regular file, or is larger than `maxBytes` (naming the `line:column`
 *   where the limit is crossed)
 */
export function readBoundedText(file: string, maxBytes: number): string {
  const cannotRead = (error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return new ConfigErrors([missingFileError(file)]);
    return new ConfigErrors([new UnreadableConfigError(file, `cannot read the file: ${fsReason(error)}`)]);
  };
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new ConfigErrors([new UnreadableConfigError(file, 'expected a regular file, found a directory, device or pipe')]);
    size = stat.size;
  } catch (error) {
    throw error instanceof ConfigErrors ? error : cannotRead(error);
  }
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw cannotRead(error);
  }
  const buffer = Buffer.alloc(maxBytes + 1);
  let length = 0;
  try {
    while (length < buffer.length) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
  } catch (error) {
    throw cannotRead(error);
  } finally {
    closeSync(fd);
  }
  if (length > maxBytes) {
    // The character that crosses the limit, from its first byte: a multibyte one cut at the limit is not counted twice.
    let cut = maxBytes;
    while (cut > 0 && (buffer[cut]! & 0xc0) === 0x80) cut--;
    const lines = buffer.subarray(0, cut).toString('utf8').split('\n');
    const position = `${lines.length}:${(lines[lines.length - 1] ?? '').length + 1}`;
    const found = size > maxBytes ? `${size} bytes` : `more than ${maxBytes} bytes`;
    throw new ConfigErrors([new UnreadableConfigError(file, `expected at most ${maxBytes} bytes, found ${found} (the limit is crossed here)`, position)]);
  }
  const bytes = buffer.subarray(0, length);
  const text = bytes.toString('utf8');
  const bad = firstInvalidUtf8(bytes, text);
  if (bad !== null) {
    const before = bytes.subarray(0, bad);
    const line = before.filter((byte) => byte === 0x0a).length + 1;
    // A byte order mark takes no column (editors do not show it).
    const column = before.subarray(before.lastIndexOf(0x0a) + 1).toString('utf8').replace(/^\ufeff/, '').length + 1;
    const found = `0x${bytes[bad]!.toString(16).padStart(2, '0')}`;
    throw new ConfigErrors([new UnreadableConfigError(file, `expected UTF-8 text, found the byte ${found} that is not UTF-8 (save the file as UTF-8; Latin-1 and other encodings are not read)`, `${line}:${column}`)]);
  }
  // Without a byte order mark an editor may have saved (U+FEFF): it is no part of the text, and would shift the columns of line 1.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The offset of the first byte of `bytes` that is not valid UTF-8, or `null`: where the
 * text decoded with replacements (`text`) stops encoding back to the same bytes.
 */
function firstInvalidUtf8(bytes: Buffer, text: string): number | null {
  if (!text.includes('\uFFFD')) return null;
  const again = Buffer.from(text, 'utf8');
  if (again.equals(bytes)) return null; // a real U+FFFD in the file
  let i = 0;
  while (i < bytes.length && bytes[i] === again[i]) i += 1;
  // Back to the start of the character that differs (a continuation byte is 10xxxxxx).
  while (i > 0 && (bytes[i]! & 0xc0) === 0x80) i -= 1;
  return i;
}

/**
 * Reads a YAML file and validates it with {@link parseYamlWith}.
 * @throws ConfigErrors when the file cannot be read, is larger than `maxBytes`, or is invalid
 */
export function loadYamlWith<S extends z.ZodType>(schema: S, file: string, maxBytes = MAX_YAML_BYTES, options: YamlCheckOptions = {}): z.output<S> {
  return parseYamlWith(schema, readBoundedText(file, maxBytes), file, options);
}
