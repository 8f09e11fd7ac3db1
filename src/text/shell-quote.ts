/**
 * `text` as one word of a POSIX shell command: left bare when it holds only characters no
 * shell treats specially (`[A-Za-z0-9_@%+=:,./-]`), else single-quoted (`it's` →
 * `'it'\''s'`; the empty string → `''`).
 */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
