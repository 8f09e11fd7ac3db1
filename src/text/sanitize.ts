/**
 * Bidirectional formatting controls (ALM, LRM, RLM, LRE..RLO, LRI..PDI): they reorder how a
 * terminal displays the text around them ("Trojan Source"), so they are shown, not applied.
 */
function isBidiControl(code: number): boolean {
  return code === 0x061c || code === 0x200e || code === 0x200f || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

/**
 * Makes untrusted text (tool output, file contents, agent text, hook stderr, the progress
 * file) safe to print: every C0 control is shown as `^X` (ESC as `^[`), and DEL, every C1
 * control and every bidi control as `\u{..}`, so no escape sequence (CSI, OSC 52 clipboard,
 * OSC 0/2 title, OSC 8 link), `\r`, `\b` or reordering from it reaches the terminal.
 * `\n` and `\t` are kept; with `oneLine` they become spaces and runs of spaces collapse.
 */
export function sanitize(text: string, options: { oneLine?: boolean } = {}): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === '\n' || ch === '\t') {
      out += options.oneLine ? ' ' : ch;
    } else if (code < 0x20) {
      out += `^${String.fromCharCode(code + 0x40)}`;
    } else if (code === 0x7f || (code >= 0x80 && code <= 0x9f) || isBidiControl(code)) {
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
