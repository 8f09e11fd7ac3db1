import { eventRows } from '../EventDetail.js';
import { helpLines } from '../HelpOverlay.js';
import { argsRows } from '../prompt-layout.js';
import type { ConsoleCommand } from '../keymap.js';
import { eventBySeq } from '../store.js';
import { act, only, type KeyInput, type KeyLayout, type Reduction } from './reduction.js';

/** How far the open overlay can scroll: its rows past what the body shows. */
function scrollLimit(input: KeyInput, layout: KeyLayout): { shown: number; max: number } {
  if (input.overlay === 'args') {
    const pending = input.session.pending;
    const shown = layout.args?.shown ?? 1;
    const rows = pending?.kind === 'tool' ? argsRows(pending.call, layout.args?.width ?? layout.width).length : 0;
    return { shown, max: Math.max(0, rows - shown) };
  }
  // Rows the overlay shows: help has a title and a footer row, an event also a summary.
  const help = input.overlay === 'help';
  const shown = help ? layout.body - 2 : layout.body - 3;
  const opened = input.opened === null ? undefined : eventBySeq(input.events, input.opened);
  const rows = help ? helpLines(layout.width).length : opened ? eventRows(opened, layout.width - 2).length : shown;
  return { shown, max: rows - shown };
}

/**
 * The keys of an overlay (scopes `help`, `event`, `args`, `quit`): close it, scroll it (within its
 * rows), or answer the quit confirmation.
 */
export function overlayReducer(input: KeyInput, command: ConsoleCommand, layout: KeyLayout): Reduction {
  switch (command) {
    case 'close':
    case 'quit-no':
      return act([['closeOverlay']]);
    case 'quit-yes':
      return act([['closeOverlay']], { kind: 'quit' });
    case 'scroll-up':
    case 'scroll-page-up':
    case 'scroll-down':
    case 'scroll-page-down': {
      const { shown, max } = scrollLimit(input, layout);
      const step = command.startsWith('scroll-page') ? Math.max(1, shown - 1) : 1;
      const by = command.endsWith('up') ? -step : step;
      return act([['scrollOverlay', Math.max(0, Math.min(input.scroll + by, max))]]);
    }
    case 'scroll-first':
      return act([['scrollOverlay', 0]]);
    case 'scroll-last':
      return act([['scrollOverlay', Math.max(0, scrollLimit(input, layout).max)]]);
    default:
      return only();
  }
}
