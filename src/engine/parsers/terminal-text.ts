/**
 * Output as a terminal would draw it. Test runners redraw their summary in place (a
 * spinner, `3 failed\r0 failed`, `ESC[1A ESC[2K` to rewrite the line above) and colour
 * their numbers; a parser that reads the bytes as text would take `3 failed` from a line
 * that the operator saw as `0 failed`, or a digit from inside an escape sequence. The text
 * parsers (`regex`, `tap`) read the result of {@link renderTerminalText} instead, so what
 * they measure is what was shown.
 *
 * A small model of a terminal screen: rows of cells and a cursor. Printable characters
 * overwrite the cell under the cursor; `\r`, `\b`, `\t`, `\n` move it; of the escape
 * sequences (ECMA-48), CSI cursor moves (`A` `B` `C` `D` `E` `F` `G` `H` `f`) and erasures
 * (`K`, `J`) are applied, every other CSI (colours), OSC (titles, links), DCS/SOS/PM/APC
 * string and two-byte escape is dropped without drawing anything. Every UTF-16 unit is one
 * column wide and a tab is kept as one character; there is no right margin, so nothing
 * wraps.
 *
 * Pure and bounded: blank cells a cursor move makes the screen pad with are counted
 * against a budget of twice the input's length, so hostile output cannot make the drawn
 * text much larger than itself.
 */

const ESC = '\x1b';

/**
 * The text a terminal would show after receiving `output`: one line per screen row,
 * joined with `\n`.
 *
 * @param output raw text of a command (already decoded from UTF-8)
 * @returns the drawn text, one line per row; text without control characters (other than
 *   `\n` and `\t`) is returned unchanged
 */
export function renderTerminalText(output: string): string {
  // Nothing to interpret: the common case stays a plain copy.
  if (!/[\x00-\x08\x0b-\x1f\x7f\x9b]/.test(output)) return output;
  const screen = new Screen(output.length);
  let i = 0;
  while (i < output.length) {
    const ch = output[i]!;
    if (ch === ESC || ch === '\x9b') {
      i = screen.escape(output, i);
      continue;
    }
    screen.control(ch);
    i += ch.length;
  }
  return screen.text();
}

class Screen {
  private rows: string[][] = [[]];
  private row = 0;
  private col = 0;
  /** Blank cells the screen may still pad with. */
  private budget: number;

  constructor(private readonly bound: number) {
    this.budget = 2 * bound;
  }

  /** A character that is not the start of an escape sequence. */
  control(ch: string): void {
    switch (ch) {
      case '\n':
        // The input's own line feeds are never counted against the padding budget.
        if (this.row + 1 >= this.rows.length) this.rows.push([]);
        this.row += 1;
        this.col = 0;
        return;
      case '\r':
        this.col = 0;
        return;
      case '\b':
        this.col = Math.max(0, this.col - 1);
        return;
    }
    if ((ch < ' ' && ch !== '\t') || ch === '\x7f') return; // other C0 controls and DEL draw nothing
    const line = this.rows[this.row]!;
    const pad = Math.min(this.col - line.length, this.budget);
    if (pad > 0) {
      this.budget -= pad;
      for (let k = 0; k < pad; k++) line.push(' ');
    }
    if (this.col > line.length) this.col = line.length; // out of padding: write at the end
    line[this.col] = ch;
    this.col += 1;
  }

  /** Interprets the escape sequence starting at `start`; returns the index after it. */
  escape(text: string, start: number): number {
    let i = start + 1;
    if (text[start] === ESC) {
      const kind = text[i];
      if (kind === undefined) return i;
      if (kind === '[') i += 1;
      else if (kind === ']' || kind === 'P' || kind === 'X' || kind === '^' || kind === '_') return skipString(text, i + 1);
      else return i + 1; // a two-byte escape (ESC 7, ESC c, ...): nothing drawn
    }
    // CSI: parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, one final byte 0x40–0x7E.
    const paramsStart = i;
    while (i < text.length && text[i]! >= '0' && text[i]! <= '?') i += 1;
    const params = text.slice(paramsStart, i);
    while (i < text.length && text[i]! >= ' ' && text[i]! <= '/') i += 1;
    const final = text[i];
    if (final === undefined || final < '@' || final > '~') return i; // cut short: dropped
    this.csi(final, params);
    return i + 1;
  }

  private csi(final: string, params: string): void {
    if (/[^0-9;]/.test(params)) return; // private modes (`?25l`) move nothing
    const args = params.split(';').map((p) => (p === '' ? NaN : Number(p)));
    const n = Math.min(this.bound, Number.isFinite(args[0]) && args[0]! > 0 ? args[0]! : 1);
    const mode = Number.isFinite(args[0]) ? args[0]! : 0;
    switch (final) {
      case 'A':
        return this.moveRow(this.row - n, false);
      case 'B':
        return this.moveRow(this.row + n, true);
      case 'C':
        this.col = Math.min(this.bound, this.col + n);
        return;
      case 'D':
        this.col = Math.max(0, this.col - n);
        return;
      case 'E':
      case 'F':
        this.moveRow(final === 'E' ? this.row + n : this.row - n, final === 'E');
        this.col = 0;
        return;
      case 'G':
        this.col = n - 1;
        return;
      case 'H':
      case 'f': {
        const col = Math.min(this.bound, Number.isFinite(args[1]) && args[1]! > 0 ? args[1]! : 1);
        this.moveRow(n - 1, true);
        this.col = col - 1;
        return;
      }
      case 'K':
        return this.eraseInLine(mode);
      case 'J':
        return this.eraseInDisplay(mode);
      default:
        return; // colours (m) and everything else draw nothing
    }
  }

  private moveRow(to: number, grow: boolean): void {
    let target = Math.max(0, Math.min(to, this.bound));
    if (grow && target >= this.rows.length) {
      const add = Math.min(target - this.rows.length + 1, this.budget);
      this.budget -= add;
      for (let k = 0; k < add; k++) this.rows.push([]);
      target = Math.min(target, this.rows.length - 1);
    }
    this.row = Math.min(target, this.rows.length - 1);
  }

  private eraseInLine(mode: number): void {
    const line = this.rows[this.row]!;
    if (mode === 0) line.length = Math.min(line.length, this.col);
    else if (mode === 1) for (let c = 0; c <= this.col && c < line.length; c++) line[c] = ' ';
    else if (mode === 2) line.length = 0;
  }

  private eraseInDisplay(mode: number): void {
    if (mode === 0) {
      this.eraseInLine(0);
      this.rows.length = this.row + 1;
    } else if (mode === 1) {
      for (let r = 0; r < this.row; r++) this.rows[r] = [];
      this.eraseInLine(1);
    } else {
      this.rows = this.rows.map(() => []);
    }
  }

  text(): string {
    return this.rows.map((cells) => cells.join('')).join('\n');
  }
}

/** Index after a control string (OSC, DCS, SOS, PM, APC) ended by BEL or ST; the rest of the text when unterminated. */
function skipString(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\x07' || text[i] === '\x9c') return i + 1;
    if (text[i] === ESC && text[i + 1] === '\\') return i + 2;
  }
  return text.length;
}
