// The check that lets most text skip the secret patterns: for long text (a chunk of printed
// JSON, 1,024 characters or more) an automaton, for short text a regular expression. Both
// must find exactly what the expression of every hint, case-insensitive, finds; a secret in
// long text is redacted as in short text.
import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, secretHintChecks } from '../../src/engine/redact.js';
import { seededRandom as random } from '../support/random.js';

/** The hint expression as it was written before the automaton: the reference. */
const HINTS =
  /-----BEGIN|[rs]k[-_]|gh[opsur]_|github_pat_|glpat-|A[KS]IA|xox[baprs]-|AIza|npm_|hf_|eyJ|authorization|bearer|:\/\/|api[_-]?key|apikey|secret|token|passw|passphrase|access[_-]?key|private[_-]?key|signing[_-]?key|credential/i;

/** Pieces of hints, whole hints, and characters that only look like their letters (Kelvin sign, long s, dotless i, fullwidth). */
const FRAGMENTS = [
  '-----BEGIN', '----', 'rk-', 'sk_', 'k-', 'gho_', 'gh', 'github_pat', '_pat_', 'glpat-', 'glpat', 'AKIA', 'ASIA', 'akI', 'xoxb-', 'xox', 'AIza', 'npm_', 'npm',
  'hf_', 'eyJ', 'ey', 'authorization', 'authori', 'bearer', 'beare', '://', ':/', 'api_key', 'api-key', 'apikey', 'api', 'key', 'secret', 'secre', 'token', 'toke',
  'passw', 'passphrase', 'pass', 'access_key', 'accesskey', 'access', 'private-key', 'privat', 'signing_key', 'signing', 'credential', 'credentia',
  'a', 's', 'k', 'e', 'y', '-', '_', ':', '/', ' ', '"', '\n', 'é', '漢', '👩‍💻', '\u212a', '\u017f', '\u0131', '\u0130', 'ｓｅｃｒｅｔ', '\ud800',
];

function randomText(next: () => number, pieces: number): string {
  let text = '';
  for (let i = 0; i < pieces; i++) {
    let piece = FRAGMENTS[Math.floor(next() * FRAGMENTS.length)]!;
    if (next() < 0.5) piece = [...piece].map((ch) => (next() < 0.5 ? ch.toUpperCase() : ch.toLowerCase())).join('');
    text += piece;
  }
  return text;
}

describe('secret hints', () => {
  it('the automaton and the short check find a hint exactly where the reference expression does', () => {
    const next = random(1);
    let found = 0;
    for (let i = 0; i < 40_000; i++) {
      const text = randomText(next, 1 + Math.floor(next() * 8));
      const want = HINTS.test(text);
      expect(secretHintChecks.long(text), JSON.stringify(text)).toBe(want);
      expect(secretHintChecks.short(text), JSON.stringify(text)).toBe(want);
      if (want) found++;
    }
    // Both answers are common, so both are checked.
    expect(found).toBeGreaterThan(5_000);
    expect(found).toBeLessThan(35_000);
  });

  it('finds a hint at the very start, at the very end and deep in long text, and none in long text without one', () => {
    const filler = 'The quick brown fox jumps over the lazy dog; 漢字 é 👩‍💻 \u212aEY. '.repeat(200);
    expect(HINTS.test(filler)).toBe(false);
    expect(secretHintChecks.long(filler)).toBe(false);
    for (const hint of ['Bearer', 'SK_', '://', 'private-KEY', 'credential']) {
      for (const text of [hint + filler, filler + hint, filler.slice(0, 5000) + hint + filler]) expect(secretHintChecks.long(text)).toBe(true);
    }
  });

  it('a secret in text of 1,024 characters or more is redacted as in short text', () => {
    const redact = createRedactor({});
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';
    const long = `${'x'.repeat(5000)} Authorization: Bearer abcdefghijklmnop1234 ${key} ${'y'.repeat(5000)}`;
    const out = redact(long);
    expect(out).not.toContain(key);
    expect(out).not.toContain('abcdefghijklmnop1234');
    expect(out).toBe(`${'x'.repeat(5000)} Authorization: Bearer ${REDACTED} ${REDACTED} ${'y'.repeat(5000)}`);
  });
});
