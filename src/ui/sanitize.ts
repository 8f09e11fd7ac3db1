/**
 * Makes untrusted text (tool output, file contents, agent text) safe to print: every
 * C0/C1 control character and DEL is shown visibly as `^X` or `\u{..}` so no escape
 * sequence from it reaches the terminal. With `oneLine`, newlines and tabs become spaces.
 */
export function sanitize(text: string, options: { oneLine?: boolean } = {}): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '\n' || ch === '\t') {
      out += options.oneLine ? ' ' : ch;
    } else if (code < 0x20) {
      out += `^${String.fromCharCode(code + 0x40)}`;
    } else if (code === 0x7f || (code >= 0x80 && code <= 0x9f) || code === 0x200e || code === 0x200f || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069)) {
      out += `\\u{${code.toString(16)}}`;
    } else {
      out += ch;
    }
  }
  return options.oneLine ? out.replace(/ {2,}/g, ' ').trim() : out;
}

/** Cuts text to `width` characters, marking the cut with `…`. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = [...text];
  return chars.length <= width ? text : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}
