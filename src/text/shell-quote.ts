import { MARK_CLASS, shownName } from './sanitize.js';

/**
 * `text` as one word of a POSIX shell command: left bare when it holds only characters no
 * shell treats specially (`[A-Za-z0-9_@%+=:,./-]`), else single-quoted (`it's` →
 * `'it'\''s'`; the empty string → `''`).
 */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * `text` as one word of a command printed for a person to copy: {@link shellQuote}'s word,
 * unless `text` holds a character that must not reach a terminal raw (a newline, a tab or
 * another control, bidi or invisible character: one {@link shownName} shows otherwise).
 * Then it is written `$'…'` with those characters escaped (`\n`, `\t`, `\x1b`, the UTF-8
 * bytes of others, `\xe2\x80\xae`): POSIX.1-2024 dollar-single-quotes, which bash, zsh and
 * ksh read, so the printed command stays on one line and still names the same file.
 */
export function printedShellWord(text: string): string {
  // A combining mark right after the opening quote would be drawn on it: escaped instead.
  const marked = LEADING_MARKS.exec(text)?.[0] ?? '';
  if (shownName(text) === text && (marked === '' || shellQuote(text) === text)) return shellQuote(text);
  return `$'${[...Array.from(marked, escapedBytes), ...Array.from(text.slice(marked.length), dollarQuoted)].join('')}'`;
}

/** The combining marks a text starts with. */
const LEADING_MARKS = new RegExp(`^[${MARK_CLASS}]+`, 'u');

/** A character as the `\xNN` escapes of its UTF-8 bytes. */
function escapedBytes(ch: string): string {
  return Array.from(Buffer.from(ch, 'utf8'), (byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join('');
}

/** One character inside `$'…'`: a backslash and a quote escaped, a character {@link shownName} changes as escapes, any other as it is. */
function dollarQuoted(ch: string): string {
  if (ch === '\\' || ch === "'") return `\\${ch}`;
  if (ch === '\n') return '\\n';
  if (ch === '\t') return '\\t';
  if (shownName(ch) === ch) return ch;
  return escapedBytes(ch);
}
