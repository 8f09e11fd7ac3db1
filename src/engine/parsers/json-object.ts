/** Characters the brace matcher may step over in all, per character of output (bounds unbalanced input). */
const SCAN_BUDGET_FACTOR = 8;

/**
 * Finds a JSON object in output that may have other text before or after it (log lines,
 * a runner's banner, stderr): tries each `{` that starts a line, last first, reads up to
 * its matching `}` (braces inside strings ignored), and returns the first value that
 * parses and that `accept` takes. Falls back to the outermost braces of the whole text.
 * Returns `null` when nothing fits. The work is linear in the output's length: on
 * pathological input (thousands of unclosed braces) it gives up and returns `null`.
 * Never throws.
 */
export function findJsonObject(output: string, accept: (value: unknown) => boolean): unknown {
  const starts: number[] = [];
  for (let i = output.indexOf('{'); i !== -1; i = output.indexOf('{', i + 1)) {
    if (i === 0 || output[i - 1] === '\n') starts.push(i);
  }
  let budget = SCAN_BUDGET_FACTOR * output.length;
  for (const start of starts.reverse()) {
    if (budget <= 0) return null;
    const end = matchingBrace(output, start, budget);
    budget -= (end === -1 ? output.length : end + 1) - start;
    if (end === -1) continue;
    const value = tryParse(output.slice(start, end + 1));
    if (value !== undefined && accept(value)) return value;
  }
  const first = output.indexOf('{');
  const last = output.lastIndexOf('}');
  if (first === -1 || last < first) return null;
  const value = tryParse(output.slice(first, last + 1));
  return value !== undefined && accept(value) ? value : null;
}

/** Index of the `}` that closes the `{` at `start`, or -1 when the text (or the budget of steps) ends first. */
function matchingBrace(text: string, start: number, budget: number): number {
  let depth = 0;
  let inString = false;
  const stop = Math.min(text.length, start + budget);
  for (let i = start; i < stop; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Whether `value` is a plain JSON object (not an array or null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
