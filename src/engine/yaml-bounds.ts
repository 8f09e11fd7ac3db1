/**
 * Bounds on what a YAML file may make loopdeck do before it is validated: how deep its
 * collections nest, and how much of its text an error message quotes back.
 *
 * The `yaml` library's lexer and composer recurse once or more per level of nesting
 * (measured with yaml 2.8 on Node 20: a flow sequence about 830 levels deep, a block one
 * about 1,000 levels deep, or a single line of 1,100 `- ` indicators exhausts the default
 * stack and throws `RangeError: Maximum call stack size exceeded`). {@link measureNesting}
 * reads the text without recursion first, so a document nested past {@link MAX_YAML_DEPTH}
 * is refused before the parser sees it.
 */

import { escapeMarksOnSyntax } from '../text/json.js';

/**
 * Deepest nesting of collections a YAML file may have (counted as {@link measureNesting}
 * counts, which may count a level or two more than the document has). Real loop.yaml files
 * and transcripts stay under 15; the parser itself gives up past several hundred.
 */
export const MAX_YAML_DEPTH = 64;

/** Most characters of user text (a key, a value, a suggestion) one error message quotes. */
export const MAX_ECHO_CHARS = 80;

/** The first `max` characters of `text`, one fewer when the cut would split a surrogate pair. */
function head(text: string, max: number): string {
  const cut = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * `text` when it has at most `max` characters; else its first `max` characters, an
 * ellipsis and its length: `kkkk… (100000 characters)`.
 */
export function clipText(text: string, max = MAX_ECHO_CHARS): string {
  return text.length <= max ? text : `${head(text, max)}… (${text.length} characters)`;
}

/**
 * A string as an error quotes it: in JSON quotes (control characters escaped), cut to
 * {@link MAX_ECHO_CHARS} characters with its length when longer: `"kkk…" (100000 characters)`.
 */
export function quoted(text: string): string {
  // A mark at the start (or after an escape) is written escaped: never drawn on the quote.
  const json = (value: string) => escapeMarksOnSyntax(JSON.stringify(value));
  return text.length <= MAX_ECHO_CHARS ? json(text) : `${json(`${head(text, MAX_ECHO_CHARS)}…`)} (${text.length} characters)`;
}

/** The deepest point of a YAML text. */
export interface Nesting {
  /** Levels of collections open at the deepest point (an upper estimate, see {@link measureNesting}). */
  depth: number;
  /** Offset in the text of the indicator that first reached `depth`. */
  offset: number;
}

const isBlank = (c: string | undefined) => c === ' ' || c === '\t';
const endsIndicator = (c: string | undefined) => c === undefined || isBlank(c) || c === '\r';

/**
 * How deep the collections of a YAML text nest, read line by line without recursion, and
 * where that depth is first reached. Stops as soon as the depth passes `stopAt`.
 *
 * Counted, outside comments, quoted scalars and block scalars (`|`, `>`): one level per
 * open indentation level of block lines, one per compact indicator (`- `, `? `, `: `) on a
 * line, and one per open `[` or `{`. The count is an upper estimate of the document's
 * depth (a `key: value` line counts the mapping it opens as well as the one it is in), so
 * a text it finds shallow cannot crash the parser by its nesting.
 */
export function measureNesting(source: string, stopAt = Infinity): Nesting {
  const scan: Scan = {
    source,
    stopAt,
    open: [],
    deepest: { depth: 0, offset: 0 },
    quote: null,
    quoteIndent: null,
    flow: 0,
    flowBlocks: 0,
    pairs: [],
    pairExtra: 0,
    base: 0,
    blockScalarParent: null,
  };
  let lineStart = 0;
  while (lineStart <= source.length && scan.deepest.depth <= stopAt) {
    let lineEnd = source.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = source.length;
    scanLine(scan, lineStart, lineEnd - lineStart);
    lineStart = lineEnd + 1;
  }
  return scan.deepest;
}

/** What {@link measureNesting} carries from line to line. */
interface Scan {
  source: string;
  stopAt: number;
  /** The block lines that may still hold the next line: their indentation and depths. */
  open: BlockLine[];
  deepest: Nesting;
  quote: '"' | "'" | null;
  /** Indentation of the block line a quoted scalar began on; `null` when it began in a flow collection. */
  quoteIndent: number | null;
  flow: number;
  /** `- ` and `? ` read inside the open flow collection (each may open a level). */
  flowBlocks: number;
  /** `key: ` indicators in the current entry of each open flow collection. */
  pairs: number[];
  /** Levels the extra `key: ` indicators of the open entries may have nested. */
  pairExtra: number;
  /** Depth under the indicators read so far on the current block line (kept while a flow collection or quoted scalar spans lines). */
  base: number;
  /** Lines indented more than this belong to a block scalar; `null` when none is open. */
  blockScalarParent: number | null;
}

/** The line being read: its offset and length, its block line (in block context). */
interface Line {
  start: number;
  length: number;
  indent: number;
  block: BlockLine | null;
  /** In block context: at a place where a node may start (not inside a plain scalar). */
  atNode: boolean;
}

function charAt(scan: Scan, line: { start: number; length: number }, i: number): string | undefined {
  return i < line.length ? scan.source[line.start + i] : undefined;
}

function reach(scan: Scan, line: Line, depth: number, column: number): void {
  if (depth > scan.deepest.depth) scan.deepest = { depth, offset: line.start + column };
}

/** Reads one line of `length` characters at offset `start`. */
function scanLine(scan: Scan, start: number, length: number): void {
  const at = (i: number) => charAt(scan, { start, length }, i);
  let indent = 0;
  while (at(indent) === ' ') indent++;
  const blankLine = indent >= length || at(indent) === '\r' || at(indent) === '#';
  // A quoted scalar of a block line ends (as an error) at a line indented no deeper than its own.
  if (scan.quote !== null && scan.quoteIndent !== null && !blankLine && indent <= scan.quoteIndent) scan.quote = null;
  const inBlock = scan.quote === null && scan.flow === 0;
  if (inBlock && scan.blockScalarParent !== null) {
    if (blankLine || indent > scan.blockScalarParent) return;
    scan.blockScalarParent = null;
  }
  if (inBlock && (blankLine || (indent === 0 && at(0) === '%'))) return;
  const line: Line = { start, length, indent, block: null, atNode: inBlock };
  let i = inBlock ? startBlockLine(scan, line) : indent;
  for (; i < length && scan.deepest.depth <= scan.stopAt; i++) {
    const next = scanChar(scan, line, i);
    if (next < 0) break;
    i = next;
  }
  if (line.block) line.block.end = Math.max(line.block.end, scan.base);
}

/** A line in block context: a document marker, or a block line under the open ones. @returns the column to read on from */
function startBlockLine(scan: Scan, line: Line): number {
  const at = (i: number) => charAt(scan, line, i);
  const { indent } = line;
  const open = scan.open;
  let i = indent;
  const marker = scan.source.slice(line.start, line.start + 3);
  if (indent === 0 && (marker === '---' || marker === '...') && endsIndicator(at(3))) {
    open.length = 0;
    i = 3;
    scan.base = 1;
    line.block = { indent: -1, end: 1, opensBlock: false, sequenceEntry: false };
  } else {
    const sequenceEntry = at(i) === '-' && endsIndicator(at(i + 1));
    while (open.length > 0 && open[open.length - 1]!.indent > indent) open.pop();
    // At the same indentation a line is a sibling, except a `- ` entry under `key:` (a
    // block sequence may sit at its key's indentation).
    while (open.length > 0 && open[open.length - 1]!.indent === indent) {
      const top = open[open.length - 1]!;
      if (sequenceEntry && top.opensBlock && !top.sequenceEntry) break;
      open.pop();
    }
    scan.base = open.length > 0 ? open[open.length - 1]!.end : 1;
    line.block = { indent, end: scan.base, opensBlock: false, sequenceEntry };
    open.push(line.block);
  }
  reach(scan, line, scan.base, i);
  return i;
}

/** Reads the character at column `i`. @returns the last column it consumed, or -1 when the rest of the line is not read */
function scanChar(scan: Scan, line: Line, i: number): number {
  const at = (k: number) => charAt(scan, line, k);
  const c = at(i);
  if (scan.quote === '"') {
    if (c === '\\') return i + 1;
    if (c === '"') scan.quote = null;
    return i;
  }
  if (scan.quote === "'") {
    if (c === "'") {
      if (at(i + 1) === "'") return i + 1;
      scan.quote = null;
    }
    return i;
  }
  if (isBlank(c) || c === '\r') return i;
  if (c === '#' && (i === 0 || isBlank(at(i - 1)))) return -1;
  return scan.flow > 0 ? flowChar(scan, line, i) : blockChar(scan, line, i);
}

/** A character inside a flow collection. @returns the last column it consumed */
function flowChar(scan: Scan, line: Line, i: number): number {
  const at = (k: number) => charAt(scan, line, k);
  const c = at(i);
  const wasAtNode = line.atNode;
  const tokenStart = line.atNode || i === line.indent;
  line.atNode = false;
  if (c === '[' || c === '{') {
    scan.pairs.push(0);
    reach(scan, line, scan.base + scan.flowBlocks + scan.pairExtra + ++scan.flow, i);
    line.atNode = true;
  } else if (c === ']' || c === '}') {
    scan.pairExtra -= Math.max(0, (scan.pairs.pop() ?? 0) - 1);
    if (--scan.flow === 0) scan.flowBlocks = scan.pairExtra = 0;
  } else if (c === ',') {
    scan.pairExtra -= Math.max(0, (scan.pairs[scan.pairs.length - 1] ?? 0) - 1);
    scan.pairs[scan.pairs.length - 1] = 0;
    line.atNode = true;
  } else if (c === ':' && (endsIndicator(at(i + 1)) || /[,[\]{}]/.test(at(i + 1) ?? ''))) {
    // A second `key: ` in one entry (`[a: b: c]`) nests a mapping in the first.
    if (++scan.pairs[scan.pairs.length - 1]! > 1) reach(scan, line, scan.base + scan.flowBlocks + ++scan.pairExtra + scan.flow, i);
    line.atNode = true;
  } else if ((c === '?' || c === '-') && endsIndicator(at(i + 1)) && tokenStart) {
    // `- ` and `? ` at the start of a node or line in a flow collection are read as
    // block indicators (an error, reported after the parser has nested them).
    reach(scan, line, scan.base + ++scan.flowBlocks + scan.pairExtra + scan.flow, i);
    line.atNode = true;
  } else if ((c === '"' || c === "'") && wasAtNode) {
    scan.quote = c;
    scan.quoteIndent = null;
  } else if (c === '&' || c === '!') {
    while (i + 1 < line.length && !isBlank(at(i + 1)) && !/[,[\]{}]/.test(at(i + 1)!)) i++;
    line.atNode = true;
  }
  return i;
}

/** A character in block context. @returns the last column it consumed, or -1 at a block scalar's indicator */
function blockChar(scan: Scan, line: Line, i: number): number {
  const at = (k: number) => charAt(scan, line, k);
  const c = at(i);
  const block = line.block;
  if (block) block.opensBlock = false;
  if (!line.atNode) {
    // Inside a plain scalar, or after a quoted one or a flow collection: `: ` makes it a key.
    if (c === ':' && endsIndicator(at(i + 1))) {
      reach(scan, line, ++scan.base, i);
      line.atNode = true;
      if (block) block.opensBlock = true;
    }
    return i;
  }
  if ((c === '-' || c === '?' || c === ':') && endsIndicator(at(i + 1))) {
    reach(scan, line, ++scan.base, i);
    if (block) block.opensBlock = c === ':';
  } else if (c === '[' || c === '{') {
    scan.flow = 1;
    scan.pairs.length = 0;
    scan.pairs.push(0);
    reach(scan, line, scan.base + scan.flow, i);
  } else if (c === '"' || c === "'") {
    scan.quote = c;
    scan.quoteIndent = block ? block.indent : null;
    line.atNode = false;
  } else if (c === '&' || c === '!') {
    while (i + 1 < line.length && !isBlank(at(i + 1))) i++; // an anchor or a tag: the node follows
    if (block) block.opensBlock = true;
  } else if (c === '|' || c === '>') {
    scan.blockScalarParent = block ? block.indent : -1;
    return -1;
  } else {
    line.atNode = false;
  }
  return i;
}

interface BlockLine {
  indent: number;
  /** Depth under its last indicator: where a more indented line below it starts. */
  end: number;
  /** Ends in `key:` (or an anchor or tag): a `- ` line at the same indentation is its value. */
  opensBlock: boolean;
  /** Starts with `- `. */
  sequenceEntry: boolean;
}

/** Whether `error` is the engine running out of stack (a `RangeError`, or a `SyntaxError` from a regular expression). */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof Error && error.message.includes('Maximum call stack size exceeded');
}
