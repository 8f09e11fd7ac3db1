// When the console draws without colours: NO_COLOR, and terminal types whose terminfo
// entries have none.
import { describe, expect, test } from 'vitest';
import { colourOff } from '../../src/ui/theme.js';

describe('colour is off', () => {
  test.each([
    [{ NO_COLOR: '1' }],
    [{ NO_COLOR: 'yes', TERM: 'xterm-256color' }],
    [{ TERM: 'xterm-mono' }],
    [{ TERM: 'rxvt-m' }],
    [{ TERM: 'screen-mono' }],
    [{ TERM: 'vt100' }],
    [{ TERM: 'vt220' }],
  ])('%j', (env) => {
    expect(colourOff(env)).toBe(true);
  });
});

describe('colour is on', () => {
  test.each([[{}], [{ NO_COLOR: '' }], [{ TERM: 'xterm-256color' }], [{ TERM: 'screen' }], [{ TERM: 'tmux-256color' }], [{ TERM: 'vt100-color' }], [{ TERM: 'xterm-monokai' }]])('%j', (env) => {
    expect(colourOff(env)).toBe(false);
  });
});
