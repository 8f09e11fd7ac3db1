// Text for the terminal: one sanitiser, one JSON writer, the only ways to print.
export { isUnsafeCodePoint, sanitize, shownName, truncate, UNSAFE_PATTERN, UNSAFE_RANGES } from './sanitize.js';
export { toJson } from './json.js';
export { guardConsole, printError, printJson, printLine } from './print.js';
export { counted } from './count.js';
