/**
 * Parsers of CLI agents' structured output (docs/design.md, "CLI agents"): pick one by
 * format or detect it, feed it lines as they arrive, or parse a finished transcript.
 */
import { claudeParser } from './claude.js';
import { codexParser } from './codex.js';
import { excerpt, isRecord, notice } from './common.js';
import { geminiParser } from './gemini.js';
import { isMiniSweTrajectory, parseMiniSweTrajectory } from './mini-swe.js';
import type { OutputSetting, TranscriptEntry, TranscriptFormat, TranscriptParser } from './types.js';

export * from './types.js';
export { MAX_ENTRY_CHARS } from './common.js';

const CLAUDE_TYPES = new Set(['system', 'assistant', 'user', 'result', 'summary', 'stream_event']);
const GEMINI_TYPES = new Set(['init', 'message', 'tool_use', 'tool_result']);

/**
 * The format one line of output is in, or `null` when it does not tell (not JSON, or a
 * record no format starts with). Codex records are dotted (`thread.started`); Gemini's
 * carry `timestamp`; Claude Code's carry `session_id`/`sessionId` or a `message`.
 */
export function detectFormat(line: string): Exclude<TranscriptFormat, 'text'> | null {
  let value: unknown;
  try {
    value = JSON.parse(line.trim());
  } catch {
    return null;
  }
  if (!isRecord(value) || typeof value.type !== 'string') return null;
  const type = value.type;
  if (/^(thread|turn|item)\./.test(type)) return 'codex-json';
  if (GEMINI_TYPES.has(type) && typeof value.timestamp === 'string') return 'gemini-stream-json';
  if (CLAUDE_TYPES.has(type) && ('session_id' in value || 'sessionId' in value || 'message' in value || 'subtype' in value)) return 'claude-stream-json';
  return null;
}

/** A parser that reads nothing: the output is shown, not interpreted. */
function textParser(): TranscriptParser {
  return { format: 'text', line: () => [], end: () => [] };
}

/** A parser for `format`. */
export function createParser(format: TranscriptFormat): TranscriptParser {
  switch (format) {
    case 'claude-stream-json':
      return claudeParser();
    case 'codex-json':
      return codexParser();
    case 'gemini-stream-json':
      return geminiParser();
    case 'text':
      return textParser();
  }
}

/**
 * A parser for an `agent.output` setting. `auto` waits for the first line whose format
 * {@link detectFormat} recognises and parses from there; lines before it are plain text
 * (nothing is parsed from them). Its `format` is `text` until then.
 */
export function parserFor(setting: OutputSetting): TranscriptParser {
  if (setting !== 'auto') return createParser(setting);
  let inner: TranscriptParser | null = null;
  return {
    get format() {
      return inner?.format ?? 'text';
    },
    line(text) {
      if (!inner) {
        const format = detectFormat(text);
        if (!format) return [];
        inner = createParser(format);
      }
      return inner.line(text);
    },
    end: () => inner?.end() ?? [],
  };
}

/** Longest line kept (characters): a longer one is left out with a notice, memory stays bounded. */
export const MAX_LINE_CHARS = 8 * 1024 * 1024;

/**
 * Splits a byte stream's text into lines as chunks arrive: `push` returns the complete
 * lines, `rest` the unterminated tail (a truncated last line at the end of a stream). A line
 * longer than `maxLine` is not held: it comes out as one line saying it was left out (not
 * JSON, so parsers keep it as a notice).
 */
export class LineSplitter {
  private pending = '';
  private overflow = 0;

  constructor(private readonly maxLine = MAX_LINE_CHARS) {}

  /** Complete lines in `chunk` (with what was pending), without their `\n` (or `\r\n`). */
  push(chunk: string): string[] {
    const parts = chunk.split('\n');
    const out: string[] = [];
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      const last = i === parts.length - 1;
      if (this.overflow > 0 || this.pending.length + part.length > this.maxLine) {
        this.overflow += this.pending.length + part.length;
        this.pending = '';
        if (!last) {
          out.push(`[a line of ${this.overflow} characters was left out: longer than ${this.maxLine}]`);
          this.overflow = 0;
        }
        continue;
      }
      if (last) {
        this.pending += part;
        continue;
      }
      const line = this.pending + part;
      this.pending = '';
      out.push(line.endsWith('\r') ? line.slice(0, -1) : line);
    }
    return out;
  }

  /** The unterminated tail, emptied. */
  rest(): string {
    const rest = this.overflow > 0 ? `[a line of ${this.overflow} characters was left out: longer than ${this.maxLine}]` : this.pending;
    this.pending = '';
    this.overflow = 0;
    return rest;
  }
}

/**
 * The entries of a whole line-oriented transcript. A last line without its newline is
 * parsed when it is a whole JSON value, and otherwise kept as a notice (a truncated write).
 */
export function parseLines(text: string, parser: TranscriptParser): TranscriptEntry[] {
  const splitter = new LineSplitter();
  const out: TranscriptEntry[] = [];
  for (const line of splitter.push(text)) out.push(...parser.line(line));
  out.push(...finishLines(splitter.rest(), parser));
  return out;
}

/** The entries of a stream's unterminated last line and of the parser's end. */
export function finishLines(rest: string, parser: TranscriptParser): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  if (rest.trim() !== '') {
    let whole = true;
    try {
      JSON.parse(rest);
    } catch {
      whole = false;
    }
    if (whole) out.push(...parser.line(rest));
    else if (parser.format !== 'text') out.push(notice(`${parser.format}: the last line is cut off, kept as text: ${excerpt(rest.trim())}`));
  }
  out.push(...parser.end());
  return out;
}

/** Formats `loopdeck import` and `audit` read: the streams plus mini-SWE-agent trajectories. */
export type ImportFormat = Exclude<TranscriptFormat, 'text'> | 'mini-swe-agent';

/**
 * A finished transcript's entries and format, detected from its content: a JSON document
 * with `messages` is a mini-SWE-agent trajectory; otherwise the first line of a known
 * stream format decides.
 * @throws Error when no known format is recognised (naming `file`).
 */
export function parseTranscript(text: string, file: string): { format: ImportFormat; entries: TranscriptEntry[] } {
  if (text.trimStart().startsWith('{')) {
    let whole: unknown;
    try {
      whole = JSON.parse(text);
    } catch {
      whole = undefined; // several JSON lines: a stream, detected below
    }
    if (isMiniSweTrajectory(whole)) return { format: 'mini-swe-agent', entries: parseMiniSweTrajectory(whole) };
  }
  for (const line of text.split('\n').slice(0, 50)) {
    const format = detectFormat(line);
    if (format) return { format, entries: parseLines(text, createParser(format)) };
  }
  throw new Error(`${file}: not a transcript loopdeck reads (expected Claude Code stream-json or a session file, Codex exec --json, Gemini CLI stream-json, or a mini-SWE-agent .traj.json)`);
}
