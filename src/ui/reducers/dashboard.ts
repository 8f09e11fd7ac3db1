import type { ConsoleCommand } from '../keymap.js';
import { filtered, moveSelection } from '../timeline-filter.js';
import { browseCheckpoint, cycle, FILTERS, PANES, type CompactBody } from '../view.js';
import { act, only, type KeyInput, type KeyLayout, type Reduction } from './reduction.js';

/**
 * A run is live in this console: started, not over, not a replay, not waiting at the
 * resume gate (nothing runs before it is confirmed), not a session another program runs
 * (`watch`, `attach`: quitting stops nothing there). Quitting then asks first.
 */
export function isLive(input: Pick<KeyInput, 'replay' | 'gate' | 'session' | 'following'>): boolean {
  return input.replay === null && !input.following && input.gate === null && input.session.machine.started && input.session.done === null;
}

/** The timeline's rows: the events shown, through the filter. */
function timeline(input: KeyInput) {
  return filtered(input.events, input.shown, input.filter);
}

/**
 * The dashboard's keys (scope `dashboard`): the timeline's selection, paging, filter and
 * follow mode, opening an event, the panels (cycling the one-view body on a small
 * terminal), browsing checkpoints, acknowledging alerts.
 */
export function dashboardReducer(input: KeyInput, command: ConsoleCommand, layout: KeyLayout): Reduction {
  const moveBy = (delta: number): Reduction => {
    const moved = moveSelection(timeline(input), input.follow, input.selected, delta);
    return moved.selected === null || moved.follow ? only() : act([['select', moved.selected]]);
  };
  switch (command) {
    case 'next-pane':
    case 'previous-pane': {
      const delta = command === 'next-pane' ? 1 : -1;
      // What the tool call panel said about its call goes with the panel.
      const left = { kind: 'clear-notice', about: 'tool-panel' } as const;
      if (!layout.single) return act([['showPane', cycle(PANES, input.pane, delta)]], left);
      return act([['showBody', cycle<CompactBody>(['timeline', ...PANES], input.compactBody, delta)]], left);
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
      return first ? act([['select', first.seq]]) : only();
    }
    case 'follow':
      return act([['followNewest']]);
    case 'open-event': {
      const seq = !input.follow && input.selected !== null ? input.selected : timeline(input).at(-1)?.seq;
      return seq === undefined ? only() : act([['openEvent', seq]]);
    }
    case 'filter-next':
    case 'filter-previous':
      return act([['showFilter', cycle(FILTERS, input.filter, command === 'filter-next' ? 1 : -1)]]);
    case 'checkpoint-previous':
    case 'checkpoint-next':
      // Browsing shows the checkpoint panel.
      return act([
        ['showCheckpoint', browseCheckpoint(input.checkpoint, command === 'checkpoint-next' ? 1 : -1, input.session.checkpoints.length)],
        layout.single ? ['showBody', 'checkpoint'] : ['showPane', 'checkpoint'],
      ]);
    case 'acknowledge-alert':
      return act([['acknowledgeAlerts', input.session.alerts.length]]);
    default:
      return only();
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
      return act([['openBar', '/']]);
    case 'help':
      return act([['openHelp']]);
    case 'quit':
      return isLive(input) ? act([['askQuit']]) : only({ kind: 'quit' });
    case 'interrupt':
      if (!isLive(input) || input.interrupted) return only({ kind: 'quit' });
      return act([['markInterrupted']], { kind: 'request-pause' });
    case 'suspend':
      return only({ kind: 'suspend' });
    default:
      return only();
  }
}

/** A replay's keys (scope `replay`): step back and forward through the recorded events. */
export function replayReducer(command: ConsoleCommand): Reduction {
  switch (command) {
    case 'replay-back':
      return only({ kind: 'replay-step', delta: -1 });
    case 'replay-forward':
      return only({ kind: 'replay-step', delta: 1 });
    case 'replay-start':
      return only({ kind: 'replay-jump', to: 'start' });
    case 'replay-end':
      return only({ kind: 'replay-jump', to: 'end' });
    default:
      return only();
  }
}
