import { parseOperatorCommand, type CommandResult, type OperatorCommand } from '../../engine/operator-command.js';
import { candidates, complete } from '../commands.js';
import type { ConsoleCommand } from '../keymap.js';
import { browse, cleanInput, edit, EMPTY_LINE, insert, lineOf, remember } from '../line-editor.js';
import { cycle } from '../view.js';
import { change, only, type Effect, type KeyInput, type Reduction } from './reduction.js';

/** One key in a text input: the command it resolved to (`null`: none) and the text it types (`''`: none). */
export interface TextKey {
  command: ConsoleCommand | null;
  text: string;
}

/**
 * Submits the command bar's line: an empty line closes the bar; a line that is not a
 * command keeps it open with the parser's message; `/help` opens help; any other command
 * is carried out by the runner (one at a time: Enter while one runs does nothing), which
 * then calls {@link commandDone}.
 */
export function submitLine(input: KeyInput, line: string): Reduction {
  if (input.view.busy) return only(input);
  const trimmed = line.trim();
  const closedList = { history: remember(input.view.history, line), completions: [], highlight: 0 };
  if (trimmed === '') return change(input, { ...closedList, input: null, line: EMPTY_LINE });
  const parsed = parseOperatorCommand(trimmed);
  if (!parsed.ok) return change(input, closedList, { kind: 'notice', ok: false, text: parsed.message });
  if (parsed.command.kind === 'help') return change(input, { ...closedList, input: null, line: EMPTY_LINE, overlay: 'help', scroll: 0 });
  return change(input, { ...closedList, busy: true }, { kind: 'operator', command: parsed.command });
}

/**
 * A command from the bar has answered: its line shows; on success the bar closes. A stop
 * also answers what waits now: `/stop` takes effect at the next safe point and a pause
 * waiting now is that point; `/stop --abort` does not wait, so a waiting tool call is
 * denied at once.
 */
export function commandDone(input: KeyInput, command: OperatorCommand, result: CommandResult): Reduction {
  const effects: Effect[] = [{ kind: 'notice', ok: result.ok, text: result.message }];
  const pending = input.session.pending;
  if (result.ok && command.kind === 'stop' && !command.abort && pending?.kind === 'pause') {
    effects.push({ kind: 'answer', payload: { action: 'stop', note: 'the operator stopped the run from the command bar' }, seq: pending.seq });
  }
  if (result.ok && command.kind === 'stop' && command.abort && pending?.kind === 'tool') {
    effects.push({ kind: 'answer', payload: { decision: 'deny', note: 'the operator aborted the run (/stop --abort)' }, seq: pending.seq });
  }
  return change(input, result.ok ? { busy: false, input: null, line: EMPTY_LINE } : { busy: false }, ...effects);
}

/** A command from the bar failed unexpectedly: says so and keeps the line to try again. */
export function commandFailed(input: KeyInput, message: string): Reduction {
  return change(input, { busy: false }, { kind: 'notice', ok: false, text: message });
}

/**
 * The command bar's keys (scopes `bar` and, while the completion list is open,
 * `completion`): submit, close (the list first), Tab completion, history or the list's
 * highlight, line editing; any other key is text.
 */
export function barReducer(input: KeyInput, key: TextKey): Reduction {
  const { line, completions, highlight, history } = input.view;
  const listOpen = completions.length > 0;
  switch (key.command) {
    case 'submit':
      return submitLine(input, line.text);
    case 'cancel':
      return change(input, listOpen ? { completions: [], highlight: 0 } : { input: null, line: EMPTY_LINE, completions: [], highlight: 0 });
    case 'complete': {
      if (listOpen) return change(input, { line: lineOf(completions[highlight] ?? line.text), completions: [], highlight: 0 });
      const result = complete(line.text);
      return change(input, { line: lineOf(result.text), completions: result.list, highlight: 0 });
    }
    case 'history-previous':
    case 'history-next': {
      if (listOpen) return change(input, { highlight: cycle(completions.map((_, i) => i), highlight, key.command === 'history-next' ? 1 : -1) });
      const moved = browse(history, line.text, key.command === 'history-previous' ? 'previous' : 'next');
      return change(input, { history: moved.history, line: lineOf(moved.text) });
    }
    case null: {
      if (key.text === '') return only(input);
      const next = insert(line, key.text);
      const list = listOpen ? candidates(next.text) : [];
      return change(input, { line: next, completions: list, highlight: Math.min(highlight, Math.max(0, list.length - 1)) });
    }
    default: {
      const next = edit(line, key.command);
      return change(input, { line: next, ...(listOpen ? { completions: candidates(next.text) } : {}) });
    }
  }
}

/** The deny note's keys (scope `note`): Enter denies the pending call with the note, Esc goes back to the prompt; the rest edits the note. */
export function noteReducer(input: KeyInput, key: TextKey): Reduction {
  const { line } = input.view;
  switch (key.command) {
    case 'submit': {
      const note = line.text.trim();
      const pending = input.session.pending;
      const effects: Effect[] = pending?.kind === 'tool' ? [{ kind: 'answer', payload: note ? { decision: 'deny', note } : { decision: 'deny' }, seq: pending.seq }] : [];
      return change(input, { input: null, line: EMPTY_LINE }, ...effects);
    }
    case 'cancel':
      return change(input, { input: null, line: EMPTY_LINE });
    case null:
      return key.text === '' ? only(input) : change(input, { line: insert(line, key.text) });
    default:
      return change(input, { line: edit(line, key.command) });
  }
}

/**
 * A paste while no text input is open: the command bar opens with the pasted text (after a
 * `/` unless it starts with one), never run until the operator presses Enter. Nothing
 * happens for a paste of blanks only.
 */
export function pasteReducer(input: KeyInput, text: string): Reduction {
  const cleaned = cleanInput(text).trimStart();
  if (cleaned === '') return only(input);
  const line = insert(cleaned.startsWith('/') ? EMPTY_LINE : lineOf('/'), cleaned);
  return change(input, { input: 'bar', line, completions: [], highlight: 0 });
}
