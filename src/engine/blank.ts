/**
 * Text a terminal draws as nothing. A command, a path, a goal or a name made only of such
 * characters shows as an empty row wherever loopdeck shows it (the approval prompt, the
 * goal panel, `validate`), so the engine treats it as blank: the same as empty.
 */

/**
 * Characters drawn as nothing: white space (ECMAScript's, the no-break space and the
 * ideographic space included), control and format characters (a zero-width space U+200B,
 * joiners, a byte order mark, direction marks, a soft hyphen), line and paragraph
 * separators, and the few letters that are blank by design (the Hangul fillers U+115F,
 * U+1160, U+3164, U+FFA0 and the blank Braille pattern U+2800).
 */
const INVISIBLE_ONLY = /^[\s\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0\u2800]*$/u;

/** Whether `text` is empty or made only of characters drawn as nothing ({@link INVISIBLE_ONLY}). */
export function isBlank(text: string): boolean {
  return INVISIBLE_ONLY.test(text);
}
