// Counts in the budget gauges and the status line take a few characters whatever their
// size: a billion tokens is `1.0G`, not `1000.0M`.
import { describe, expect, it } from 'vitest';
import { formatBudget } from '../../src/engine/budget-units.js';
import { compactNumber } from '../../src/ui/format.js';

describe('compactNumber', () => {
  it('each magnitude in its unit', () => {
    expect([950, 1_234, 34_400, 1_500_000, 2e9, 1e15].map(compactNumber)).toEqual(['950', '1.2k', '34k', '1.5M', '2.0G', '1000.0T']);
    // Budget amounts are exact (the notice, the gauge and the timeline say the same): short when that is exact.
    expect(formatBudget('tokens', 1e9)).toBe('1G');
    expect(formatBudget('turns', 1e9)).toBe('1G');
    expect(formatBudget('tokens', 1_000_000_001)).toBe('1000000001');
    expect(formatBudget('tokens', 1_500)).toBe('1.5k');
  });

  it('at most 7 characters (and a minus sign) for any count up to 10^15', () => {
    for (let exponent = 0; exponent <= 15; exponent += 0.25) {
      for (const sign of [1, -1]) {
        const n = sign * Math.round(10 ** exponent);
        expect(compactNumber(n).length, String(n)).toBeLessThanOrEqual(sign < 0 ? 8 : 7);
      }
    }
  });
});
