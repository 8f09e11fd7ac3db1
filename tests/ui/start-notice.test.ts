// The notice a run starts with when its preparation warned: every warning whole, counted
// and numbered when there are several (the notice line wraps; they are printed again on exit).
import { describe, expect, test } from 'vitest';
import { startNotice } from '../../src/ui/run-console.js';

describe('the start notice', () => {
  test('no warning: no notice; one: that warning as it is', () => {
    expect(startNotice([])).toBeNull();
    expect(startNotice(['loop.yaml: nothing to measure'])).toEqual({ ok: false, text: 'loop.yaml: nothing to measure' });
  });

  test.each([2, 3, 12])('%i warnings: counted, each numbered and whole, in order', (n) => {
    const warnings = Array.from({ length: n }, (_, i) => `agent.yaml:${i + 2}:18: turns[${i}].tool_calls[0]: nosuchtool${i} (b${i}): unknown tool`);
    const notice = startNotice(warnings)!;
    expect(notice.ok).toBe(false);
    expect(notice.text.startsWith(`${n} warnings (listed again on exit): 1. ${warnings[0]}`)).toBe(true);
    let at = 0;
    warnings.forEach((w, i) => {
      const found = notice.text.indexOf(`${i + 1}. ${w}`, at);
      expect(found, w).toBeGreaterThanOrEqual(at);
      at = found;
    });
  });
});
