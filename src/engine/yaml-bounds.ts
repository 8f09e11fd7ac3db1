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
  return text.length <= MAX_ECHO_CHARS ? JSON.stringify(text) : `${JSON.stringify(`${head(text, MAX_ECHO_CHARS)}…`)} (${text.length} characters)`;
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
  /** The block lines that may still hold the next line: their indentation and depths. */
  const open: BlockLine[] = [];
  let deepest: Nesting = { depth: 0, offset: 0 };
  let quote: '"' | "'" | null = null;
  /** Indentation of the block line a quoted scalar began on; `null` when it began in a flow collection. */
  let quoteIndent: number | null = null;
  let flow = 0;
  /** `- ` and `? ` read inside the open flow collection (each may open a level). */
  let flowBlocks = 0;
  /** `key: ` indicators in the current entry of each open flow collection. */
  const pairs: number[] = [];
  /** Levels the extra `key: ` indicators of the open entries may have nested. */
  let pairExtra = 0;
  /** Depth under the indicators read so far on the current block line (kept while a flow collection or quoted scalar spans lines). */
  let base = 0;
  /** Lines indented more than this belong to a block scalar; `null` when none is open. */
  let blockScalarParent: number | null = null;

  let lineStart = 0;
  while (lineStart <= source.length && deepest.depth <= stopAt) {
    let lineEnd = source.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = source.length;
    const length = lineEnd - lineStart;
    const at = (i: number) => (i < length ? source[lineStart + i] : undefined);
    const reach = (depth: number, column: number) => {
      if (depth > deepest.depth) deepest = { depth, offset: lineStart + column };
    };
    let indent = 0;
    while (at(indent) === ' ') indent++;
    let i = indent;
    const blankLine = i >= length || at(i) === '\r' || at(i) === '#';
    // A quoted scalar of a block line ends (as an error) at a line indented no deeper than its own.
    if (quote !== null && quoteIndent !== null && !blankLine && indent <= quoteIndent) quote = null;
    const inBlock = quote === null && flow === 0;
    if (inBlock && blockScalarParent !== null) {
      if (blankLine || indent > blockScalarParent) {
        lineStart = lineEnd + 1;
        continue;
      }
      blockScalarParent = null;
    }
    if (inBlock && (blankLine || (indent === 0 && at(0) === '%'))) {
      lineStart = lineEnd + 1;
      continue;
    }

    let line: BlockLine | null = null;
    if (inBlock) {
      const marker = source.slice(lineStart, lineStart + 3);
      if (indent === 0 && (marker === '---' || marker === '...') && endsIndicator(at(3))) {
        open.length = 0;
        i = 3;
        base = 1;
        line = { indent: -1, end: 1, opensBlock: false, sequenceEntry: false };
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
        base = open.length > 0 ? open[open.length - 1]!.end : 1;
        line = { indent, end: base, opensBlock: false, sequenceEntry };
        open.push(line);
      }
      reach(base, i);
    }

    /** In block context: at a place where a node may start (not inside a plain scalar). */
    let atNode = inBlock;
    for (; i < length && deepest.depth <= stopAt; i++) {
      const c = at(i);
      if (quote === '"') {
        if (c === '\\') i++;
        else if (c === '"') quote = null;
        continue;
      }
      if (quote === "'") {
        if (c === "'") {
          if (at(i + 1) === "'") i++;
          else quote = null;
        }
        continue;
      }
      if (isBlank(c) || c === '\r') continue;
      if (c === '#' && (i === 0 || isBlank(at(i - 1)))) break;
      if (flow > 0) {
        const wasAtNode = atNode;
        const tokenStart = atNode || i === indent;
        atNode = false;
        if (c === '[' || c === '{') {
          pairs.push(0);
          reach(base + flowBlocks + pairExtra + ++flow, i);
          atNode = true;
        } else if (c === ']' || c === '}') {
          pairExtra -= Math.max(0, (pairs.pop() ?? 0) - 1);
          if (--flow === 0) flowBlocks = pairExtra = 0;
        } else if (c === ',') {
          pairExtra -= Math.max(0, (pairs[pairs.length - 1] ?? 0) - 1);
          pairs[pairs.length - 1] = 0;
          atNode = true;
        } else if (c === ':' && (endsIndicator(at(i + 1)) || /[,[\]{}]/.test(at(i + 1) ?? ''))) {
          // A second `key: ` in one entry (`[a: b: c]`) nests a mapping in the first.
          if (++pairs[pairs.length - 1]! > 1) reach(base + flowBlocks + ++pairExtra + flow, i);
          atNode = true;
        } else if ((c === '?' || c === '-') && endsIndicator(at(i + 1)) && tokenStart) {
          // `- ` and `? ` at the start of a node or line in a flow collection are read as
          // block indicators (an error, reported after the parser has nested them).
          reach(base + ++flowBlocks + pairExtra + flow, i);
          atNode = true;
        } else if ((c === '"' || c === "'") && wasAtNode) {
          quote = c;
          quoteIndent = null;
        } else if (c === '&' || c === '!') {
          while (i + 1 < length && !isBlank(at(i + 1)) && !/[,[\]{}]/.test(at(i + 1)!)) i++;
          atNode = true;
        }
        continue;
      }
      if (line) line.opensBlock = false;
      if (!atNode) {
        // Inside a plain scalar, or after a quoted one or a flow collection: `: ` makes it a key.
        if (c === ':' && endsIndicator(at(i + 1))) {
          reach(++base, i);
          atNode = true;
          if (line) line.opensBlock = true;
        }
        continue;
      }
      if ((c === '-' || c === '?' || c === ':') && endsIndicator(at(i + 1))) {
        reach(++base, i);
        if (line) line.opensBlock = c === ':';
      } else if (c === '[' || c === '{') {
        flow = 1;
        pairs.length = 0;
        pairs.push(0);
        reach(base + flow, i);
      } else if (c === '"' || c === "'") {
        quote = c;
        quoteIndent = line ? line.indent : null;
        atNode = false;
      } else if (c === '&' || c === '!') {
        while (i + 1 < length && !isBlank(at(i + 1))) i++; // an anchor or a tag: the node follows
        if (line) line.opensBlock = true;
      } else if (c === '|' || c === '>') {
        blockScalarParent = line ? line.indent : -1;
        break;
      } else {
        atNode = false;
      }
    }
    if (line) line.end = Math.max(line.end, base);
    lineStart = lineEnd + 1;
  }
  return deepest;
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
