import { parseOperatorCommand, type CommandResult, type CommandSet, type OperatorCommand } from '../../engine/operator-command.js';
import { candidates, complete } from '../commands.js';
import { pauseOffers, type ConsoleCommand } from '../keymap.js';
import { browse, cleanInput, edit, EMPTY_LINE, insert, lineOf, MAX_LINE_CHARS, remember, type LineState } from '../line-editor.js';
import { cycle } from '../view.js';
import { act, only, type Effect, type KeyInput, type Reduction } from './reduction.js';

/** One key in a text input: the command it resolved to (`null`: none) and the text it types (`''`: none). */
export interface TextKey {
  command: ConsoleCommand | null;
  text: string;
}

/** The line a warning named is gone (the bar closed, or a command was sent): so is the warning. */
const LINE_GONE: Effect = { kind: 'clear-notice', about: 'command-line' };

/**
 * Text inserted into `line`, and the notice when the line had no room for all of it (see
 * {@link MAX_LINE_CHARS}): what was left out is said, never dropped silently.
 */
function inserted(line: LineState, text: string): { line: LineState; notices: Effect[] } {
  const { cut, ...next } = insert(line, text);
  if (!cut) return { line: next, notices: [] };
  const notice = `a line holds at most ${MAX_LINE_CHARS.toLocaleString('en-US')} characters: the last ${cut.toLocaleString('en-US')} typed or pasted were left out`;
  return { line: next, notices: [{ kind: 'notice', ok: false, text: notice, about: 'command-line' }] };
}

/** The commands the console answers: in a replay or a followed session only those that change nothing. */
const commandSet = (input: KeyInput): CommandSet => (input.replay || input.following ? 'read-only' : 'all');

/**
 * Submits the command bar's line: an empty line closes the bar; a line that is not a
 * command keeps it open with the parser's message; `/help` opens help; any other command
 * is carried out by the runner (one at a time: Enter while one runs does nothing), which
 * then calls {@link commandDone}.
 */
export function submitLine(input: KeyInput, line: string): Reduction {
  if (input.busy) return only();
  const trimmed = line.trim();
  if (trimmed === '') return act([['remember', line], ['closeInput']], LINE_GONE);
  // A replay or a followed session answers only what changes nothing: an unknown command's suggestion lists only those.
  const parsed = parseOperatorCommand(trimmed, commandSet(input));
  if (!parsed.ok) return act([['remember', line], ['closeCompletions']], { kind: 'notice', ok: false, text: parsed.message, about: 'command-line' });
  if (parsed.command.kind === 'help') return act([['remember', line], ['closeInput'], ['openHelp']], LINE_GONE);
  return act([['remember', line], ['closeCompletions'], ['setBusy', true]], LINE_GONE, { kind: 'operator', command: parsed.command });
}

/**
 * A command from the bar has answered: its line shows; on success, or when the console
 * refused a well-formed command (a replay, a run that is over), the bar closes. A stop
 * also answers what waits now: `/stop` takes effect at the next safe point and a pause
 * waiting now is that point; `/stop --abort` does not wait, so a waiting tool call is
 * denied at once. A redirect of the goal at a pause whose prompt offers `r` (stagnation,
 * repetition, constraint: {@link pauseOffers}) is the operator's answer to it (`r` opens
 * the bar with `/goal redirect `): the run continues towards the new goal.
 */
export function commandDone(input: KeyInput, command: OperatorCommand, result: CommandResult): Reduction {
  // A stop that waits for the next safe point is true while the run goes on: it goes when the run finishes.
  const stopping = result.ok && command.kind === 'stop' && !command.abort;
  // A failure the bar stays open for is about its line; an answer it closes for stands on its own.
  const stays = !result.ok && !result.refused;
  const effects: Effect[] = [
    stopping
      ? { kind: 'notice', ok: true, text: result.message, while: 'running' }
      : { kind: 'notice', ok: result.ok, text: result.message, ...(stays ? { about: 'command-line' as const } : {}) },
  ];
  const pending = input.session.pending;
  if (result.ok && command.kind === 'stop' && !command.abort && pending?.kind === 'pause') {
    effects.push({ kind: 'answer', payload: { action: 'stop', note: 'the operator stopped the run from the command bar' }, seq: pending.seq });
  }
  if (result.ok && command.kind === 'revise-goal' && command.directive === 'redirect' && pending?.kind === 'pause' && pauseOffers(pending.cause, 'redirect')) {
    effects.push({ kind: 'answer', payload: { action: 'continue' }, seq: pending.seq });
  }
  if (result.ok && command.kind === 'stop' && command.abort && pending?.kind === 'tool') {
    effects.push({ kind: 'answer', payload: { decision: 'deny', note: 'the operator aborted the run (/stop --abort)' }, seq: pending.seq });
  }
  return act(stays ? [['setBusy', false]] : [['setBusy', false], ['closeInput']], ...effects);
}

/** A command from the bar failed unexpectedly: says so and keeps the line to try again. */
export function commandFailed(message: string): Reduction {
  return act([['setBusy', false]], { kind: 'notice', ok: false, text: message, about: 'command-line' });
}

/**
 * The command bar's keys (scopes `bar` and, while the completion list is open,
 * `completion`): submit, close (Esc closes the bar and its list at once), Tab completion, history or the list's
 * highlight, line editing; any other key is text.
 */
export function barReducer(input: KeyInput, key: TextKey): Reduction {
  const { line, completions, highlight, history } = input;
  const listOpen = completions.length > 0;
  const commands = commandSet(input);
  switch (key.command) {
    case 'submit':
      return submitLine(input, line.text);
    case 'cancel':
      // One Esc closes the bar, its completion list with it, whatever state the list is in.
      return act([['closeInput']], LINE_GONE);
    case 'complete': {
      if (listOpen) return act([['setLine', lineOf(completions[highlight] ?? line.text)], ['closeCompletions']]);
      const result = complete(line.text, commands);
      return act([['setLine', lineOf(result.text)], ['showCompletions', result.list, 0]]);
    }
    case 'history-previous':
    case 'history-next': {
      if (listOpen) return act([['showCompletions', completions, cycle(completions.map((_, i) => i), highlight, key.command === 'history-next' ? 1 : -1)]]);
      const moved = browse(history, line.text, key.command === 'history-previous' ? 'previous' : 'next');
      return act([['recall', moved.history, moved.text]]);
    }
    case null: {
      if (key.text === '') return only();
      const { line: next, notices } = inserted(line, key.text);
      if (!listOpen) return act([['setLine', next]], ...notices);
      const list = candidates(next.text, commands);
      return act([['setLine', next], ['showCompletions', list, Math.min(highlight, Math.max(0, list.length - 1))]], ...notices);
    }
    default: {
      // Home goes to the start of what follows the leading `/` first (text typed there is a
      // command's), and to the very start from there.
      const afterSlash = key.command === 'cursor-home' && line.text.startsWith('/') && line.cursor > 1;
      const next = afterSlash ? { ...line, cursor: 1 } : edit(line, key.command);
      return act(listOpen ? [['setLine', next], ['showCompletions', candidates(next.text, commands), highlight]] : [['setLine', next]]);
    }
  }
}

/** The deny note's keys (scope `note`): Enter denies the pending call with the note, Esc goes back to the prompt; the rest edits the note. */
export function noteReducer(input: KeyInput, key: TextKey): Reduction {
  const { line } = input;
  switch (key.command) {
    case 'submit': {
      const note = line.text.trim();
      const pending = input.session.pending;
      const effects: Effect[] = pending?.kind === 'tool' ? [{ kind: 'answer', payload: note ? { decision: 'deny', note } : { decision: 'deny' }, seq: pending.seq }] : [];
      return act([['closeInput']], ...effects);
    }
    case 'cancel':
      return act([['closeInput']]);
    case null: {
      if (key.text === '') return only();
      const { line: next, notices } = inserted(line, key.text);
      return act([['setLine', next]], ...notices);
    }
    default:
      return act([['setLine', edit(line, key.command)]]);
  }
}

/**
 * A paste while no text input is open: the command bar opens with the pasted text (after a
 * `/` unless it starts with one), never run until the operator presses Enter. Nothing
 * happens for a paste of blanks only.
 */
export function pasteReducer(_input: KeyInput, text: string): Reduction {
  const cleaned = cleanInput(text).trimStart();
  if (cleaned === '') return only();
  const { line, notices } = inserted(cleaned.startsWith('/') ? EMPTY_LINE : lineOf('/'), cleaned);
  return act([['openBar', ''], ['setLine', line]], ...notices);
}
