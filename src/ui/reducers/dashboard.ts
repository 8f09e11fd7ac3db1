import type { ConsoleCommand } from '../keymap.js';
import { lineOf } from '../line-editor.js';
import { filtered, moveSelection } from '../timeline-filter.js';
import { browseCheckpoint, cycle, FILTERS, PANES, type CompactBody } from '../view.js';
import { change, only, type KeyInput, type KeyLayout, type Reduction } from './reduction.js';

/**
 * A run is live in this console: started, not over, not a replay, not waiting at the
 * resume gate (nothing runs before it is confirmed). Quitting then asks first.
 */
export function isLive(input: Pick<KeyInput, 'replay' | 'gate' | 'session'>): boolean {
  return input.replay === null && input.gate === null && input.session.machine.started && input.session.done === null;
}

/** The timeline's rows: the events shown, through the filter. */
function timeline(input: KeyInput) {
  return filtered(input.events, input.shown, input.view.filter);
}

/**
 * The dashboard's keys (scope `dashboard`): the timeline's selection, paging, filter and
 * follow mode, opening an event, the panels (cycling the one-view body on a small
 * terminal), browsing checkpoints, acknowledging alerts.
 */
export function dashboardReducer(input: KeyInput, command: ConsoleCommand, layout: KeyLayout): Reduction {
  const { view } = input;
  const moveBy = (delta: number) => change(input, moveSelection(timeline(input), view.follow, view.selected, delta));
  switch (command) {
    case 'next-pane':
    case 'previous-pane': {
      const delta = command === 'next-pane' ? 1 : -1;
      if (!layout.single) return change(input, { pane: cycle(PANES, view.pane, delta) });
      const body = cycle<CompactBody>(['timeline', ...PANES], view.compactBody, delta);
      return change(input, body === 'timeline' ? { compactBody: body } : { compactBody: body, pane: body });
    }
    case 'select-up':
      return moveBy(-1);
    case 'select-down':
      return moveBy(1);
    case 'page-up':
      return moveBy(-Math.max(1, layout.page));
    case 'page-down':
      return moveBy(Math.max(1, layout.page));
    case 'select-first': {
      const first = timeline(input)[0];
      return first ? change(input, { follow: false, selected: first.seq }) : only(input);
    }
    case 'follow':
      return change(input, { follow: true, selected: null });
    case 'open-event': {
      const seq = !view.follow && view.selected !== null ? view.selected : timeline(input).at(-1)?.seq;
      return seq === undefined ? only(input) : change(input, { overlay: 'event', opened: seq, scroll: 0 });
    }
    case 'filter-next':
    case 'filter-previous':
      return change(input, { filter: cycle(FILTERS, view.filter, command === 'filter-next' ? 1 : -1) });
    case 'checkpoint-previous':
    case 'checkpoint-next':
      // Browsing shows the checkpoint panel.
      return change(input, {
        checkpoint: browseCheckpoint(view.checkpoint, command === 'checkpoint-next' ? 1 : -1, input.session.checkpoints.length),
        pane: 'checkpoint',
        ...(layout.single ? { compactBody: 'checkpoint' as const } : {}),
      });
    case 'acknowledge-alert':
      return change(input, { acknowledged: input.session.alerts.length });
    default:
      return only(input);
  }
}

/**
 * The keys that work anywhere on the dashboard (scope `global`): the command bar, help,
 * quit (asking first while a run is live), Ctrl+C (once: pause at the next safe point;
 * twice, or with nothing live: quit).
 */
export function globalReducer(input: KeyInput, command: ConsoleCommand): Reduction {
  switch (command) {
    case 'open-command-bar':
      return change(input, { input: 'bar', line: lineOf('/'), completions: [], highlight: 0 });
    case 'help':
      return change(input, { overlay: 'help', scroll: 0 });
    case 'quit':
      return isLive(input) ? change(input, { overlay: 'quit' }) : only(input, { kind: 'quit' });
    case 'interrupt':
      if (!isLive(input) || input.view.interrupted) return only(input, { kind: 'quit' });
      return change(input, { interrupted: true }, { kind: 'request-pause' });
    default:
      return only(input);
  }
}

/** A replay's keys (scope `replay`): step back and forward through the recorded events. */
export function replayReducer(input: KeyInput, command: ConsoleCommand): Reduction {
  switch (command) {
    case 'replay-back':
      return only(input, { kind: 'replay-step', delta: -1 });
    case 'replay-forward':
      return only(input, { kind: 'replay-step', delta: 1 });
    case 'replay-start':
      return only(input, { kind: 'replay-jump', to: 'start' });
    case 'replay-end':
      return only(input, { kind: 'replay-jump', to: 'end' });
    default:
      return only(input);
  }
}

