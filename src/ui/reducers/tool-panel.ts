import type { ConsoleCommand } from '../keymap.js';
import { LIVE_EVENTS } from '../store.js';
import { callEventHeld, pausedCall, shownCall, unmadeCallShown } from '../tool-history.js';
import { act, only, type Effect, type KeyInput, type Reduction } from './reduction.js';

/**
 * The tool call panel's keys (scopes `tool-panel` and `tool-history`): `[` steps back to
 * the call before the one shown, `]` forward (past the newest the panel follows the live
 * call again, unless the timeline holds a selection), End goes back to the live call,
 * Enter opens the call shown as its `tool.call` event. While the live view shows a call not
 * made yet (a repetition pause is about it), `[` steps to the last call made. The place stepped to is kept by
 * index in the run's calls, so calls that arrive meanwhile never move it. What the panel
 * says about the call shown ("call 1 is the first call") goes when the operator steps on.
 */
export function toolPanelReducer(input: KeyInput, command: ConsoleCommand): Reduction {
  const shown = shownCall(input);
  if (shown === null) return only({ kind: 'notice', ok: true, info: true, text: 'no tool call yet', while: 'no-tool-call' });
  const count = input.session.toolOrder.length;
  const moved: Effect = { kind: 'clear-notice', about: 'tool-panel' };
  switch (command) {
    case 'tool-older':
      // The live view shows a call not made yet (a repetition pause): the call before it is the last one made.
      if (unmadeCallShown(input)) return act([['showToolCall', count - 1]], moved);
      if (shown === 0) return act([['showToolCall', 0]], { kind: 'notice', ok: true, info: true, text: 'call 1 is the first call of the run', about: 'tool-panel' });
      return act([['showToolCall', shown - 1]], moved);
    case 'tool-newer': {
      // At a repetition pause the newest made call is not the live one: the call not made yet comes after it.
      if (pausedCall(input) && shown === count - 1) return act([['showToolCall', null], ['followNewest']], moved);
      const next = Math.min(count - 1, shown + 1);
      if (pausedCall(input)) return act([['showToolCall', next]], moved);
      // At the newest: follow the live call again, unless the timeline's selection would show another call.
      return act([['showToolCall', next === count - 1 && input.follow ? null : next]], moved);
    }
    case 'tool-live':
      return act([['showToolCall', null], ['followNewest']], moved);
    case 'tool-open': {
      const record = input.session.tools.get(input.session.toolOrder[shown]!);
      if (record && callEventHeld(input, shown)) return act([['openEvent', record.seq]]);
      const text = `call ${shown + 1}'s events were let go (${LIVE_EVENTS.toLocaleString('en-US')} are held); replay the run's log to open it`;
      return only({ kind: 'notice', ok: false, text, about: 'tool-panel' });
    }
    default:
      return only();
  }
}
