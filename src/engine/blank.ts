/**
 * Text a terminal draws as nothing. A command, a path, a goal or a name made only of such
 * characters shows as an empty row wherever loopdeck shows it (the approval prompt, the
 * goal panel, `validate`), so the engine treats it as blank: the same as empty.
 */
import { INVISIBLE_CLASS } from '../text/sanitize.js';

/**
 * Characters drawn as nothing: white space (ECMAScript's, the no-break space and the
 * ideographic space included), control characters, line and paragraph separators, the
 * invisible code points the console shows escaped ({@link INVISIBLE_CLASS}: zero-width
 * space, joiners, a byte order mark, direction marks, the soft hyphen, variation selectors,
 * Hangul fillers, tags, ...) and the blank Braille pattern U+2800.
 */
const INVISIBLE_ONLY = new RegExp(`^[\\s\\p{Cc}\\p{Zs}\\p{Zl}\\p{Zp}${INVISIBLE_CLASS}\\u2800]*$`, 'u');

/** Whether `text` is empty or made only of characters drawn as nothing ({@link INVISIBLE_ONLY}). */
export function isBlank(text: string): boolean {
  return INVISIBLE_ONLY.test(text);
}
