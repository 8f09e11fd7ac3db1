import { useEffect, useRef } from 'react';
import { assertNever } from '../engine/events.js';
import { performOperatorCommand } from '../engine/operator-command.js';
import { useConsole, useConsoleOptions, useConsoleStore, useController, type ConsoleController } from './context.js';
import { PRIORITY, useKeypress, type Keypress } from './keypress.js';
import { raisedPause } from './budget-pause.js';
import { HeldKeys } from './held-keys.js';
import { bindingFor, keyLabel, keysText, pauseScope, type ConsoleCommand, type Scope } from './keymap.js';
import { barReducer, commandDone, commandFailed, noteReducer, pasteReducer, type TextKey } from './reducers/bar.js';
import { dashboardReducer, globalReducer, isLive, replayReducer } from './reducers/dashboard.js';
import { overlayReducer } from './reducers/overlay.js';
import { gateReducer, pauseReducer, reloadReducer, toolReducer } from './reducers/prompt.js';
import { toolPanelReducer } from './reducers/tool-panel.js';
import { dispatch, type Effect, type KeyInput, type KeyLayout, type Reduction } from './reducers/reduction.js';
import type { ConsoleData, ConsoleStore } from './store.js';
import { toolPanelShown } from './tool-history.js';

/** What the prompt's scope depends on. */
type PromptInput = Pick<ConsoleData, 'replay' | 'gate' | 'session' | 'armed'>;

export type { KeyLayout };

export { isLive };

/** The prompt's scope, once its keys are armed; `null` when there is none or it is not armed yet. */
export function promptScope(state: PromptInput): Scope | null {
  if (state.replay) return null;
  if (state.gate) return state.gate.kind === 'start' ? 'start-gate' : 'gate';
  // Changes of loop.yaml waiting for a key come first: they are quick to answer, and the rules they change may decide the next prompt.
  const reload = state.session.reloadPending;
  if (reload) return state.armed === reload.seq ? 'reload' : null;
  const pending = state.session.pending;
  if (!pending || state.armed !== pending.seq) return null;
  if (pending.kind === 'tool') return 'tool';
  // A budget pause whose limit was raised past its use offers no `e`: it would raise again.
  if (raisedPause(state.session)) return 'pause';
  return pauseScope(pending.cause);
}

/** The scope of the pending prompt whether armed or not (for its key line). */
export function pendingScope(state: PromptInput): Scope | null {
  return promptScope({ ...state, armed: state.session.reloadPending?.seq ?? state.session.pending?.seq ?? null });
}

/** What the tool call panel's scopes depend on: the panel shown and the call stepped back to. */
type PanelInput = Partial<Pick<ConsoleData, 'pane' | 'compactBody' | 'toolCall'>>;

/**
 * The scopes the dashboard's keys resolve in, highest priority first: the armed prompt's,
 * the tool call panel's while it is shown in `layout` (`tool-history` too while it shows an
 * earlier call), the replay's, the dashboard's, the global ones.
 */
export function dashboardScopes(state: PromptInput & PanelInput, layout: Pick<KeyLayout, 'single'> = { single: false }): Scope[] {
  const scopes: Scope[] = [];
  const prompt = promptScope(state);
  if (prompt) scopes.push(prompt);
  if (state.pane !== undefined && state.compactBody !== undefined && toolPanelShown({ pane: state.pane, compactBody: state.compactBody }, layout)) {
    if (state.toolCall !== null && state.toolCall !== undefined) scopes.push('tool-history');
    scopes.push('tool-panel');
  }
  if (state.replay) scopes.push('replay');
  scopes.push('dashboard', 'global');
  return scopes;
}

/** Scopes whose keys answer a question: only a key alone in its read answers (a held key, keys typed ahead or a paste never do). */
/** Each overlay by name, and the command that closes it, for what a paste under it says. */
const OVERLAY_CLOSE: Record<'help' | 'event' | 'quit' | 'args', readonly [string, ConsoleCommand]> = {
  help: ['help', 'close'],
  event: ['the event', 'close'],
  args: ['the arguments view', 'close'],
  quit: ['the quit confirmation', 'quit-no'],
};

const ANSWER_SCOPES: ReadonlySet<Scope> = new Set(['tool', 'budget-pause', 'stagnation-pause', 'operator-pause', 'pause', 'gate', 'start-gate', 'reload', 'quit']);

/** The scopes a key may resolve in: all of `scopes` for a key alone in its read, else those that answer nothing. */
function scopesFor(key: Keypress, scopes: Scope[]): Scope[] {
  return key.source === 'key' ? scopes : scopes.filter((scope) => !ANSWER_SCOPES.has(scope));
}

/** The reducer of each scope a dashboard key resolves in. */
const DASHBOARD_REDUCERS: Record<Exclude<Scope, 'completion' | 'bar' | 'note' | 'help' | 'event' | 'args' | 'quit'>, (input: KeyInput, command: ConsoleCommand, layout: KeyLayout) => Reduction> = {
  tool: toolReducer,
  'budget-pause': pauseReducer,
  'stagnation-pause': pauseReducer,
  'operator-pause': pauseReducer,
  pause: pauseReducer,
  gate: (_, command) => gateReducer(command),
  'start-gate': (_, command) => gateReducer(command),
  reload: reloadReducer,
  'tool-history': toolPanelReducer,
  'tool-panel': toolPanelReducer,
  replay: (_, command) => replayReducer(command),
  dashboard: dashboardReducer,
  global: globalReducer,
};

/**
 * The key runner: resolves each key in the scopes that are active, hands it to that
 * scope's pure reducer (reducers/), calls the view actions it returns on the store and
 * performs its effects through the controller. Pure of React: every key reads the latest state from the store.
 */
export function createCommands(store: ConsoleStore, controller: ConsoleController, layout: () => KeyLayout) {
  const get = () => store.getState();

  const perform = (effect: Effect): void => {
    switch (effect.kind) {
      case 'answer':
        return controller.answer(effect.payload, effect.seq);
      case 'notice': {
        const { kind: _, ...notice } = effect;
        return get().setNotice(notice);
      }
      case 'clear-notice':
        if (get().notice?.about === effect.about) get().setNotice(null);
        return;
      case 'extend':
        if (!controller.extend) return get().setNotice({ ok: false, text: 'e raises a spent budget; this pause is not a budget pause' });
        void controller.extend(effect.dimension).then((result) => {
          get().setNotice({ ok: result.ok, text: result.message });
          if (result.ok) controller.answer({ action: 'continue' }, effect.seq);
        });
        return;
      case 'operator': {
        const command = effect.command;
        void performOperatorCommand(controller, command).then(
          (result) => apply(commandDone(get(), command, result)),
          (error: unknown) => apply(commandFailed(String(error))),
        );
        return;
      }
      case 'confirm':
        return controller.confirm?.();
      case 'answer-reload': {
        if (!controller.answerReload) return get().setNotice({ ok: false, text: 'this console cannot answer a reload' });
        const result = controller.answerReload(effect.seq, effect.accept);
        return get().setNotice({ ok: result.ok, text: result.message });
      }
      case 'quit':
        return controller.quit();
      case 'request-pause':
        return controller.requestPause?.();
      case 'suspend':
        return controller.suspend?.();
      case 'replay-step':
        return controller.replay?.step(effect.delta);
      case 'replay-jump':
        return controller.replay?.jump(effect.to);
      default:
        return assertNever(effect);
    }
  };

  /** Takes the reduction's view actions, then performs its effects, each in order. */
  const apply = (reduction: Reduction): void => {
    dispatch(get(), reduction.actions);
    for (const effect of reduction.effects) perform(effect);
  };

  /** A text input's key: a paste is text only (its line breaks never submit), any other key may be bound. */
  const textKey = (key: Keypress, scopes: Scope[]): TextKey => {
    if (key.source === 'paste') return { command: null, text: key.input };
    return { command: bindingFor(key.name, scopes)?.command ?? null, text: key.input };
  };

  // Each handler checks the store, not React state: keys of one read come one after the
  // other before React renders, and the first (`/`) may open the bar for the rest.

  /**
   * The key that opened a text input (the deny note with `d`, the command bar with `/` or
   * `r`) while nothing but its own repeats followed: a key held down types nothing into
   * what it opened (`dddd` in the note). The same key pressed again after a pause (`d`,
   * then `do not run it`) is text: one that follows it later than a repeat would waits, as
   * an answer does ({@link HeldKeys}), to see whether repeats of it come (it was held: the
   * terminal's first repeat comes after its repeat delay) or not (it was pressed, and
   * `handle` types it).
   */
  let opener: { name: string; input: string } | null = null;
  const repeatsOpener = (key: Keypress, handle: (key: Keypress) => boolean): boolean => {
    const same = opener !== null && key.name === opener.name && key.input === opener.input;
    if (!same || key.source === 'paste' || key.source === 'chunk') {
      opener = null;
      return false;
    }
    if (key.source === 'repeat') return true;
    if (key.afterSame === undefined) {
      opener = null;
      return false;
    }
    const input = get().input;
    const { afterSame: _, ...press } = key;
    return held.answer(key, () => void (get().input === input && handle(press))) !== 'now';
  };

  /** The command bar's keys: editing, history, completion; everything else is text. */
  const barKey = (key: Keypress): boolean => {
    if (get().input !== 'bar') return false;
    if (repeatsOpener(key, barKey)) return true;
    const scopes: Scope[] = get().completions.length > 0 ? ['completion', 'bar'] : ['bar'];
    apply(barReducer(get(), textKey(key, scopes)));
    return true;
  };

  /** The deny note's keys: Enter denies with the note, Esc goes back to the prompt. */
  const noteKey = (key: Keypress): boolean => {
    if (get().input !== 'note') return false;
    if (repeatsOpener(key, noteKey)) return true;
    apply(noteReducer(get(), textKey(key, ['note'])));
    return true;
  };

  /** Overlays take every key but Ctrl+C, which still pauses or quits; a paste is told where it did not go. */
  const overlayKey = (key: Keypress): boolean => {
    const overlay = get().overlay;
    if (!overlay) return false;
    // A paste has nowhere to go under an overlay: said, never dropped without a word.
    if (key.source === 'paste') {
      const [name, close] = OVERLAY_CLOSE[overlay];
      if (key.input.trim() !== '') get().setNotice({ ok: false, text: `the paste went nowhere: ${name} is open; close it (${keysText(overlay, close)}), then paste again` });
      return true;
    }
    const binding = bindingFor(key.name, scopesFor(key, [overlay]));
    // The quit confirmation says yes once armed, as a prompt does: a key typed on after `q`
    // never quits. Ctrl+C (quits in any case when pressed twice) and staying work at once.
    if (binding?.command === 'quit-yes' && key.name !== 'ctrl+c' && !get().quitArmed) return true;
    if (binding && !(ANSWER_SCOPES.has(binding.scope) && holdBack(key, () => get().overlay === overlay, overlayKey))) {
      apply(overlayReducer(get(), binding.command, layout()));
    }
    return key.name !== 'ctrl+c' || binding !== undefined;
  };

  /** The dashboard's keys; a paste opens the command bar with the pasted text. */
  const dashboardKey = (key: Keypress): boolean => {
    if (key.source === 'paste') {
      apply(pasteReducer(get(), key.input));
      return true;
    }
    const binding = bindingFor(key.name, scopesFor(key, dashboardScopes(get(), layout())));
    if (!binding) return false;
    if (binding.command === 'quit') {
      // `q` held down after it closed help (its first repeat comes half a second later, like
      // a press) asks nothing: it waits to see whether it repeats, as an answer does.
      if (holdBack(key, () => get().overlay === null && get().input === null, dashboardKey)) return true;
      if (key.source !== 'key') return true; // a held or typed-ahead q never quits
    }
    if (ANSWER_SCOPES.has(binding.scope)) {
      const armed = get().armed;
      if (holdBack(key, () => get().armed === armed, dashboardKey)) return true;
    }

    // Whether the run is live decides what q and Ctrl+C do: on the events recorded so far.
    if (binding.command === 'quit' || binding.command === 'interrupt') controller.catchUp?.();
    const reducer = DASHBOARD_REDUCERS[binding.scope as keyof typeof DASHBOARD_REDUCERS];
    const before = get().input;
    if (reducer) apply(reducer(get(), binding.command, layout()));
    if (before === null && get().input !== null) opener = { name: key.name, input: key.input };
    return true;
  };

  /** Keys held down, told from keys pressed to answer (`./held-keys.ts`). */
  const held = new HeldKeys();

  /**
   * Whether a key that would answer a prompt is taken another way: it is held down (it
   * answers nothing, and the notice says to press it again), or it waits to see whether it
   * repeats (`handle` takes it as a press later, while `stillAsked` holds: the same prompt
   * or overlay). `false`: answer with it now.
   */
  const holdBack = (key: Keypress, stillAsked: () => boolean, handle: (key: Keypress) => boolean): boolean => {
    const { afterSame: _, ...press } = key;
    const taken = held.answer(key, () => void (stillAsked() && handle(press)));
    if (taken === 'held') get().setNotice({ ok: false, text: `${keyLabel(key.name)} is held down: it answers nothing; release it and press it again` });
    return taken !== 'now';
  };

  /** Keys that work in every view, a text input's too: Ctrl+Z suspends. Every key is first noted as held or pressed ({@link HeldKeys}). */
  const systemKey = (key: Keypress): boolean => {
    held.seen(key);
    if (key.source === 'paste' || bindingFor(key.name, ['global'])?.command !== 'suspend') return false;
    apply(globalReducer(get(), 'suspend'));
    return true;
  };

  /** Drops an answer still held back (the console is closing). */
  const dispose = (): void => held.dispose();

  return { systemKey, barKey, noteKey, overlayKey, dashboardKey, dispose };
}

/**
 * The console's key handling: text inputs first, then overlays, then the dashboard's
 * key map. Also arms each prompt's keys once it has been on screen for `armMs`.
 */
export function useConsoleKeys(layout: KeyLayout, hidden = false): void {
  const store = useConsoleStore();
  const controller = useController();
  const { armMs } = useConsoleOptions();
  const layoutRef = useRef(layout);
  layoutRef.current = layout;
  const commands = useRef<ReturnType<typeof createCommands> | null>(null);
  commands.current ??= createCommands(store, controller, () => layoutRef.current);
  useEffect(() => () => commands.current?.dispose(), []);
  useKeypress((key) => commands.current!.systemKey(key), { priority: PRIORITY.system });
  useKeypress((key) => commands.current!.barKey(key), { priority: PRIORITY.input });
  useKeypress((key) => commands.current!.noteKey(key), { priority: PRIORITY.input });
  useKeypress((key) => commands.current!.overlayKey(key), { priority: PRIORITY.overlay });
  useKeypress((key) => commands.current!.dashboardKey(key), { priority: PRIORITY.dashboard });

  // Arm the prompt's keys once it has been on screen briefly: keys typed before it
  // appeared (or in the instant it appeared) never answer it.
  // While suspended (Ctrl+Z) nothing is armed, and after `fg` the prompt arms anew: keys typed
  // at the shell meanwhile (`fg⏎y`) reach the console the moment it continues.
  const pendingSeq = useConsole((s) => (s.replay ? null : (s.session.reloadPending?.seq ?? s.session.pending?.seq ?? null)));
  // A `kill -STOP` the console never saw ends in a SIGCONT too (`wakes`): it arms anew then.
  const wakes = useConsole((s) => s.wakes);
  useEffect(() => store.getState().promptChanged(), [store, pendingSeq]);
  useEffect(() => {
    store.getState().arm(null);
    if (pendingSeq === null || hidden) return undefined;
    const timer = setTimeout(() => store.getState().arm(pendingSeq), armMs);
    return () => clearTimeout(timer);
  }, [store, pendingSeq, armMs, hidden, wakes]);
  const quitAsked = useConsole((s) => s.overlay === 'quit');
  useEffect(() => {
    store.getState().armQuit(false);
    if (!quitAsked || hidden) return undefined;
    const timer = setTimeout(() => store.getState().armQuit(true), armMs);
    return () => clearTimeout(timer);
  }, [store, quitAsked, armMs, hidden, wakes]);
}
