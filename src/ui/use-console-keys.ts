import { useEffect, useRef } from 'react';
import { BUDGET_COMMAND_NAMES } from '../engine/types.js';
import { alwaysAllowChoices } from '../hooks/always-allow.js';
import { candidates, complete } from './commands.js';
import { eventRows } from './EventDetail.js';
import { helpRows } from './HelpOverlay.js';
import { useConsole, useConsoleOptions, useConsoleStore, useController, type ConsoleController } from './context.js';
import { PRIORITY, useKeypress, type Keypress } from './keypress.js';
import { bindingFor, chunkKeys, type ConsoleCommand, type Scope } from './keymap.js';
import { browse, edit, EMPTY_LINE, insert, lineOf, remember } from './line-editor.js';
import { eventBySeq, type ConsoleState, type ConsoleStore } from './store.js';
import { filtered, moveSelection } from './timeline-filter.js';
import { browseCheckpoint, cycle, FILTERS, PANES, type CompactBody } from './view.js';

/**
 * A run is live in this console: started, not over, not a replay, not waiting at the
 * resume gate (nothing runs before it is confirmed). Quitting then asks first.
 */
export function isLive(state: ConsoleState): boolean {
  return state.replay === null && state.gate === null && state.session.machine.started && state.session.done === null;
}

/** The prompt's scope, once its keys are armed; `null` when there is none or it is not armed yet. */
export function promptScope(state: ConsoleState): Scope | null {
  if (state.replay) return null;
  if (state.gate) return 'gate';
  const pending = state.session.pending;
  if (!pending || state.view.armed !== pending.seq) return null;
  if (pending.kind === 'tool') return 'tool';
  switch (pending.cause.kind) {
    case 'budget_exceeded':
      return 'budget-pause';
    case 'stagnation':
    case 'repetition':
      return 'stagnation-pause';
    case 'operator':
      return 'operator-pause';
    case 'hook':
      return 'pause';
  }
}

/** The scope of the pending prompt whether armed or not (for its key line). */
export function pendingScope(state: ConsoleState): Scope | null {
  return promptScope({ ...state, view: { ...state.view, armed: state.session.pending?.seq ?? null } });
}

/** The scopes the dashboard's keys resolve in, highest priority first. */
export function dashboardScopes(state: ConsoleState): Scope[] {
  const scopes: Scope[] = [];
  const prompt = promptScope(state);
  if (prompt) scopes.push(prompt);
  if (state.replay) scopes.push('replay');
  scopes.push('dashboard', 'global');
  return scopes;
}

/** What the layout tells the key handlers. */
export interface KeyLayout {
  /** The body shows one view at a time (timeline or a panel) rather than both. */
  single: boolean;
  /** Rows of the timeline, for page up/down. */
  page: number;
  /** The body's size, where overlays scroll. */
  width: number;
  body: number;
}

/** A text key: a printable character or a pasted chunk (never a named key like `tab`). */
function isText(key: Keypress): boolean {
  return key.input !== '' && (key.name === '' || [...key.name].length === 1);
}

/**
 * A text input's key handler that takes a chunk (keys that arrived in one read) apart into
 * the keys the terminal sent ({@link chunkKeys}) and handles them in order, so a Backspace
 * in the chunk deletes where the text before it left the cursor. It consumes every key.
 */
function eachKey(handle: (key: Keypress) => void): (key: Keypress) => boolean {
  return (key) => {
    for (const one of key.name === '' ? chunkKeys(key.input) : [key]) handle(one);
    return true;
  };
}

/**
 * Runs console commands against the store and the controller. Pure of React: every
 * handler reads the latest state from the store when the key arrives.
 */
export function createCommands(store: ConsoleStore, controller: ConsoleController, layout: () => KeyLayout) {
  const get = () => store.getState();
  const setView = (change: Parameters<ConsoleState['setView']>[0]) => get().setView(change);
  const notice = (ok: boolean, text: string) => get().setNotice({ ok, text });
  const pending = () => get().session.pending;
  const timeline = () => {
    const s = get();
    return filtered(s.events, s.shown, s.view.filter);
  };
  const moveBy = (delta: number) => {
    const s = get();
    setView(moveSelection(timeline(), s.view.follow, s.view.selected, delta));
  };
  const answerTool = (payload: Parameters<ConsoleController['answer']>[0]) => {
    const p = pending();
    if (p?.kind === 'tool') controller.answer(payload, p.seq);
  };
  const answerPause = (payload: Parameters<ConsoleController['answer']>[0]) => {
    const p = pending();
    if (p?.kind === 'pause') controller.answer(payload, p.seq);
  };
  const openBar = (text: string) => setView({ input: 'bar', line: lineOf(text), completions: [], highlight: 0 });

  const run = (command: ConsoleCommand): void => {
    const s = get();
    switch (command) {
      case 'approve':
        return answerTool({ decision: 'approve' });
      case 'approve-always': {
        const p = pending();
        if (p?.kind !== 'tool') return;
        const { exact } = alwaysAllowChoices(p.call);
        if (exact.rule === null) return notice(false, `nothing can be stored for this call (${exact.why}); y approves it once`);
        return answerTool({ decision: 'approve', always: exact.rule });
      }
      case 'approve-wider': {
        const p = pending();
        if (p?.kind !== 'tool') return;
        const [wider] = alwaysAllowChoices(p.call).wider;
        if (!wider) return notice(false, 'no wider rule for this call: only read-only commands and tools have one; a stores the exact call');
        return answerTool({ decision: 'approve', always: wider.rule });
      }
      case 'deny':
        return answerTool({ decision: 'deny' });
      case 'deny-with-note':
        return setView({ input: 'note', line: EMPTY_LINE });
      case 'expand-args':
        return setView({ expandArgs: !s.view.expandArgs });
      case 'continue': {
        setView({ interrupted: false });
        // Continuing with the limit still spent pauses again at once: say why, and what helps.
        const spent = s.session.exhausted;
        const limit = spent === null ? null : s.session.limits[spent];
        if (spent !== null && limit !== null && s.session.usage[spent] >= limit) {
          const name = BUDGET_COMMAND_NAMES[spent];
          notice(false, `the ${name.replace('_', ' ')} budget is still spent, so the run pauses again: e raises it, or /budget ${name} +N`);
        }
        return answerPause({ action: 'continue' });
      }
      case 'stop':
        return answerPause({ action: 'stop' });
      case 'extend': {
        const p = pending();
        const dimension = s.session.exhausted;
        if (p?.kind !== 'pause' || !dimension || !controller.extend) return notice(false, 'e raises a spent budget; this pause is not a budget pause');
        void controller.extend(dimension).then((result) => {
          notice(result.ok, result.message);
          if (result.ok) controller.answer({ action: 'continue' }, p.seq);
        });
        return;
      }
      case 'redirect':
        return openBar('/goal redirect ');
      case 'confirm':
        return controller.confirm?.();
      case 'open-command-bar':
        return openBar('/');
      case 'help':
        return setView({ overlay: 'help', scroll: 0 });
      case 'quit':
        if (isLive(s)) return setView({ overlay: 'quit' });
        return controller.quit();
      case 'interrupt':
        if (!isLive(s) || s.view.interrupted) return controller.quit();
        controller.requestPause?.();
        return setView({ interrupted: true });
      case 'next-pane':
      case 'previous-pane': {
        const delta = command === 'next-pane' ? 1 : -1;
        if (layout().single) {
          const bodies: CompactBody[] = ['timeline', ...PANES];
          const body = cycle(bodies, s.view.compactBody, delta);
          return setView(body === 'timeline' ? { compactBody: body } : { compactBody: body, pane: body });
        }
        return setView({ pane: cycle(PANES, s.view.pane, delta) });
      }
      case 'select-up':
        return moveBy(-1);
      case 'select-down':
        return moveBy(1);
      case 'page-up':
        return moveBy(-Math.max(1, layout().page));
      case 'page-down':
        return moveBy(Math.max(1, layout().page));
      case 'select-first': {
        const first = timeline()[0];
        return setView(first ? { follow: false, selected: first.seq } : {});
      }
      case 'follow':
        return setView({ follow: true, selected: null });
      case 'open-event': {
        const list = timeline();
        const seq = !s.view.follow && s.view.selected !== null ? s.view.selected : list.at(-1)?.seq;
        if (seq === undefined) return;
        return setView({ overlay: 'event', opened: seq, scroll: 0 });
      }
      case 'filter-next':
      case 'filter-previous':
        return setView({ filter: cycle(FILTERS, s.view.filter, command === 'filter-next' ? 1 : -1) });
      case 'checkpoint-previous':
      case 'checkpoint-next':
        // Browsing shows the checkpoint panel.
        return setView({
          checkpoint: browseCheckpoint(s.view.checkpoint, command === 'checkpoint-next' ? 1 : -1, s.session.checkpoints.length),
          pane: 'checkpoint',
          ...(layout().single ? { compactBody: 'checkpoint' as const } : {}),
        });
      case 'acknowledge-alert':
        return setView({ acknowledged: s.session.alerts.length });
      case 'replay-back':
        return controller.replay?.step(-1);
      case 'replay-forward':
        return controller.replay?.step(1);
      case 'replay-start':
        return controller.replay?.jump('start');
      case 'replay-end':
        return controller.replay?.jump('end');
      case 'close':
      case 'quit-no':
        return setView({ overlay: null, opened: null, scroll: 0 });
      case 'scroll-up':
      case 'scroll-page-up':
      case 'scroll-down':
      case 'scroll-page-down': {
        const { width, body } = layout();
        const opened = s.view.opened === null ? undefined : eventBySeq(s.events, s.view.opened);
        // Rows the overlay shows: help has a title and a footer row, an event also a summary.
        const shown = s.view.overlay === 'help' ? body - 2 : body - 3;
        const max = s.view.overlay === 'help' ? helpRows().length - shown : opened ? eventRows(opened, width - 2).length - shown : 0;
        const step = command.startsWith('scroll-page') ? Math.max(1, shown - 1) : 1;
        const by = command.endsWith('up') ? -step : step;
        return setView({ scroll: Math.max(0, Math.min(s.view.scroll + by, max)) });
      }
      case 'quit-yes':
        setView({ overlay: null });
        return controller.quit();
      default:
        return;
    }
  };

  /** Runs a command-bar line; on error the line stays in the bar to be fixed. */
  const submitBar = (line: string) => {
    const s = get();
    if (s.view.busy) return; // one command at a time: a second Enter must not run it twice
    const trimmed = line.trim();
    setView({ history: remember(s.view.history, line), completions: [], highlight: 0 });
    if (trimmed === '') return setView({ input: null, line: EMPTY_LINE });
    if (trimmed === '/help') {
      return setView({ input: null, line: EMPTY_LINE, overlay: 'help', scroll: 0 });
    }
    setView({ busy: true });
    void controller.command(line).then(
      (result) => {
        notice(result.ok, result.message);
        setView(result.ok ? { busy: false, input: null, line: EMPTY_LINE } : { busy: false });
        // `/stop` takes effect at the next safe point; a pause waiting now is that point.
        if (result.ok && /^\/stop(\s|$)/.test(trimmed)) answerPause({ action: 'stop', note: 'the operator stopped the run from the command bar' });
        // `/stop --abort` does not wait: a tool call waiting for its answer is denied now.
        if (result.ok && trimmed === '/stop --abort') answerTool({ decision: 'deny', note: 'the operator aborted the run (/stop --abort)' });
      },
      (error: unknown) => {
        notice(false, String(error));
        setView({ busy: false });
      },
    );
  };

  /** The command bar's keys: editing, history, completion; everything else is text. */
  const barKey = eachKey((key: Keypress): boolean => {
    const s = get();
    const { line, completions, highlight } = s.view;
    const listOpen = completions.length > 0;
    const command = bindingFor(key.name, listOpen ? ['completion', 'bar'] : ['bar'])?.command ?? null;
    switch (command) {
      case 'submit':
        submitBar(line.text);
        return true;
      case 'cancel':
        setView(listOpen ? { completions: [], highlight: 0 } : { input: null, line: EMPTY_LINE, completions: [], highlight: 0 });
        return true;
      case 'complete': {
        if (listOpen) {
          setView({ line: lineOf(completions[highlight] ?? line.text), completions: [], highlight: 0 });
          return true;
        }
        const result = complete(line.text);
        setView({ line: lineOf(result.text), completions: result.list, highlight: 0 });
        return true;
      }
      case 'history-previous':
      case 'history-next': {
        if (listOpen) {
          setView({ highlight: cycle(completions.map((_, i) => i), highlight, command === 'history-next' ? 1 : -1) });
          return true;
        }
        const moved = browse(s.view.history, line.text, command === 'history-previous' ? 'previous' : 'next');
        setView({ history: moved.history, line: lineOf(moved.text) });
        return true;
      }
      case null:
        break;
      default:
        setView({ line: edit(line, command), ...(listOpen ? { completions: candidates(edit(line, command).text) } : {}) });
        return true;
    }
    if (isText(key)) {
      const next = insert(line, key.input);
      const list = listOpen ? candidates(next.text) : [];
      setView({ line: next, completions: list, highlight: Math.min(highlight, Math.max(0, list.length - 1)) });
    }
    return true;
  });

  /** The deny note's keys: Enter denies with the note, Esc goes back to the prompt. */
  const noteKey = eachKey((key: Keypress): void => {
    const { line } = get().view;
    const command = bindingFor(key.name, ['note'])?.command ?? null;
    if (command === 'submit') {
      const note = line.text.trim();
      setView({ input: null, line: EMPTY_LINE });
      answerTool(note ? { decision: 'deny', note } : { decision: 'deny' });
    } else if (command === 'cancel') {
      setView({ input: null, line: EMPTY_LINE });
    } else if (command !== null) {
      setView({ line: edit(line, command) });
    } else if (isText(key)) {
      setView({ line: insert(line, key.input) });
    }
  });

  /** Overlays take every key but Ctrl+C, which still pauses or quits. */
  const overlayKey = (key: Keypress): boolean => {
    const overlay = get().view.overlay;
    if (!overlay) return false;
    const command = bindingFor(key.name, [overlay])?.command ?? null;
    if (command) run(command);
    return key.name !== 'ctrl+c' || command !== null;
  };

  const dashboardKey = (key: Keypress): boolean => {
    const command = bindingFor(key.name, dashboardScopes(get()))?.command ?? null;
    if (command) run(command);
    return command !== null;
  };

  return { run, submitBar, barKey, noteKey, overlayKey, dashboardKey };
}

/**
 * The console's key handling: text inputs first, then overlays, then the dashboard's
 * key map. Also arms each prompt's keys once it has been on screen for `armMs`.
 */
export function useConsoleKeys(layout: KeyLayout): void {
  const store = useConsoleStore();
  const controller = useController();
  const { armMs } = useConsoleOptions();
  const layoutRef = useRef(layout);
  layoutRef.current = layout;
  const commands = useRef<ReturnType<typeof createCommands> | null>(null);
  commands.current ??= createCommands(store, controller, () => layoutRef.current);
  const input = useConsole((s) => s.view.input);
  const overlay = useConsole((s) => s.view.overlay !== null);
  useKeypress((key) => commands.current!.barKey(key), { isActive: input === 'bar', priority: PRIORITY.input });
  useKeypress((key) => commands.current!.noteKey(key), { isActive: input === 'note', priority: PRIORITY.input });
  useKeypress((key) => commands.current!.overlayKey(key), { isActive: overlay, priority: PRIORITY.overlay });
  useKeypress((key) => commands.current!.dashboardKey(key), { priority: PRIORITY.dashboard });

  // Arm the prompt's keys once it has been on screen briefly: keys typed before it
  // appeared (or in the instant it appeared) never answer it.
  const pendingSeq = useConsole((s) => (s.replay ? null : (s.session.pending?.seq ?? null)));
  useEffect(() => {
    store.getState().setView((s) => ({
      expandArgs: false,
      ...(s.view.input === 'note' ? { input: null, line: EMPTY_LINE } : {}),
    }));
    if (pendingSeq === null) return undefined;
    const timer = setTimeout(() => store.getState().setView({ armed: pendingSeq }), armMs);
    return () => clearTimeout(timer);
  }, [store, pendingSeq, armMs]);
}
