/**
 * The one key map of the console: every key the console reacts to, as data. The router
 * (use-console-keys.ts), the text inputs (line-editor.ts), the help overlay and the
 * footer all read this table; nothing else decides what a key does.
 */
import { cellWidth, wrapWords } from './text.js';
import type { PauseReason } from '../engine/reasons.js';

/** Named commands a key can trigger. */
export type ConsoleCommand =
  // approval prompt
  | 'approve'
  | 'approve-always'
  | 'approve-wider'
  | 'deny'
  | 'deny-with-note'
  | 'expand-args'
  // pauses
  | 'continue'
  | 'extend'
  | 'redirect'
  | 'stop'
  // the resume gate
  | 'confirm'
  // a reload of loop.yaml waiting for the operator's key
  | 'reload-apply'
  | 'reload-keep'
  // everywhere on the dashboard
  | 'open-command-bar'
  | 'help'
  | 'quit'
  | 'interrupt'
  | 'suspend'
  // dashboard
  | 'next-pane'
  | 'previous-pane'
  | 'select-up'
  | 'select-down'
  | 'page-up'
  | 'page-down'
  | 'select-first'
  | 'follow'
  | 'open-event'
  | 'filter-next'
  | 'filter-previous'
  | 'checkpoint-previous'
  | 'checkpoint-next'
  | 'acknowledge-alert'
  // the tool call panel, while it is shown
  | 'tool-older'
  | 'tool-newer'
  | 'tool-live'
  | 'tool-open'
  // replay
  | 'replay-back'
  | 'replay-forward'
  | 'replay-start'
  | 'replay-end'
  // overlays
  | 'close'
  | 'scroll-up'
  | 'scroll-down'
  | 'scroll-page-up'
  | 'scroll-page-down'
  | 'scroll-first'
  | 'scroll-last'
  | 'quit-yes'
  | 'quit-no'
  // text inputs (command bar, deny note)
  | 'submit'
  | 'cancel'
  | 'complete'
  | 'history-previous'
  | 'history-next'
  | 'cursor-left'
  | 'cursor-right'
  | 'cursor-home'
  | 'cursor-end'
  | 'delete-back'
  | 'delete-forward'
  | 'delete-word'
  | 'delete-to-end'
  | 'word-left'
  | 'word-right'
  | 'clear-line';

/**
 * Where a binding applies. The router asks scopes in priority order (the focused widget
 * first) and the first scope that binds the key wins:
 * - text inputs: `bar` (with `completion` above it while the completion list is open),
 *   `note` (the deny note). Unbound keys there are text, never hotkeys.
 * - overlays: `help`, `event` (an opened event), `quit` (quit confirmation). Unbound keys
 *   there do nothing.
 * - prompts: `tool`, `budget-pause`, `stagnation-pause`, `operator-pause`, `pause` (any
 *   other pause), `gate` (confirm a resumed run), `start-gate` (start a run despite the
 *   warnings shown), `reload` (changes of loop.yaml that wait
 *   for a key; shown before any other prompt). A prompt's keys work only once it has
 *   been on screen briefly, so keys typed before it appeared never answer it.
 * - `tool-panel` while the tool call panel is shown (the panel Tab shows beside the
 *   timeline, or the one view of a small terminal), with `tool-history` above it while that
 *   panel shows an older call rather than the live one.
 * - `replay` (a recorded run), then `dashboard`, then `global`.
 */
export type Scope =
  | 'completion'
  | 'bar'
  | 'note'
  | 'help'
  | 'event'
  | 'args'
  | 'quit'
  | 'tool'
  | 'budget-pause'
  | 'stagnation-pause'
  | 'operator-pause'
  | 'pause'
  | 'gate'
  | 'start-gate'
  | 'reload'
  | 'tool-history'
  | 'tool-panel'
  | 'replay'
  | 'dashboard'
  | 'global';

/** One row of the key map: the key as {@link keyName} spells it, the command, where, and what help says. */
export interface KeyBinding {
  key: string;
  command: ConsoleCommand;
  scope: Scope;
  help: string;
  /** A short label: bindings that have one are listed in their prompt's key line or the footer. */
  label?: string;
  /** A shorter label still (`once` for `approve once`), for a prompt that has no row to spare for its key line in full. */
  brief?: string;
}

const ANY_PAUSE = ['budget-pause', 'stagnation-pause', 'operator-pause', 'pause'] as const;

function each(scopes: readonly Scope[], key: string, command: ConsoleCommand, help: string, label?: string): KeyBinding[] {
  return scopes.map((scope) => ({ key, command, scope, help, ...(label ? { label } : {}) }));
}

/** The key map. Order matters only for display (help and footer list bindings in this order). */
export const KEYMAP: readonly KeyBinding[] = [
  // ---- approval prompt
  { key: 'y', command: 'approve', scope: 'tool', help: 'approve once', label: 'approve once', brief: 'once' },
  { key: 'a', command: 'approve-always', scope: 'tool', help: 'always allow this exact call for this run (stores the rule shown)', label: 'always allow', brief: 'always' },
  { key: 'A', command: 'approve-wider', scope: 'tool', help: 'always allow the wider rule shown (read-only commands and tools only)', label: 'wider rule', brief: 'wider' },
  { key: 'n', command: 'deny', scope: 'tool', help: 'deny (the agent is told)', label: 'deny' },
  { key: 'd', command: 'deny-with-note', scope: 'tool', help: 'deny with a note to the agent', label: 'deny with note', brief: 'note' },
  { key: 'v', command: 'expand-args', scope: 'tool', help: 'open the arguments in full (scrollable)', label: 'all args', brief: 'args' },
  // ---- pauses
  { key: 'e', command: 'extend', scope: 'budget-pause', help: 'raise the spent limit by its increment and continue', label: 'extend and continue', brief: 'extend' },
  ...each(ANY_PAUSE, 'c', 'continue', 'continue', 'continue'),
  { key: 'r', command: 'redirect', scope: 'stagnation-pause', help: 'redirect the goal (opens /goal redirect)', label: 'redirect the goal', brief: 'redirect' },
  ...each(ANY_PAUSE, 's', 'stop', 'stop the run', 'stop'),
  // ---- resume gate
  { key: 'enter', command: 'confirm', scope: 'gate', help: 'resume the run', label: 'resume' },
  { key: 'q', command: 'quit', scope: 'gate', help: 'quit without resuming', label: 'quit' },
  // ---- warnings before a run starts
  { key: 'enter', command: 'confirm', scope: 'start-gate', help: 'start the run despite the warnings', label: 'start the run' },
  { key: 'q', command: 'quit', scope: 'start-gate', help: 'quit without starting', label: 'quit' },
  // ---- a reload of loop.yaml whose changes wait for a key
  { key: 'y', command: 'reload-apply', scope: 'reload', help: 'apply the changes shown', label: 'apply the changes' },
  { key: 'n', command: 'reload-keep', scope: 'reload', help: 'decline them: the policy in force stays', label: 'keep the policy in force' },
  // ---- the tool call panel (shown): its keys come before the timeline's and the replay's
  { key: '[', command: 'tool-older', scope: 'tool-panel', help: 'the call before (the panel stays on it as new calls arrive)' },
  { key: ']', command: 'tool-newer', scope: 'tool-panel', help: 'the call after; past the newest, the live call again' },
  { key: 'end', command: 'tool-live', scope: 'tool-history', help: 'back to the live call (the timeline follows the newest too)' },
  { key: 'enter', command: 'tool-open', scope: 'tool-history', help: "open the call's tool.call event (while the console holds it)" },
  // ---- replay
  { key: 'left', command: 'replay-back', scope: 'replay', help: 'previous event', label: 'back' },
  { key: 'right', command: 'replay-forward', scope: 'replay', help: 'next event', label: 'forward' },
  { key: 'home', command: 'replay-start', scope: 'replay', help: 'first event', label: 'first' },
  { key: 'end', command: 'replay-end', scope: 'replay', help: 'last event', label: 'last' },
  // ---- dashboard
  { key: 'up', command: 'select-up', scope: 'dashboard', help: 'timeline: select the previous event (stops following)' },
  { key: 'down', command: 'select-down', scope: 'dashboard', help: 'timeline: select the next event' },
  { key: 'pageup', command: 'page-up', scope: 'dashboard', help: 'timeline: one page up' },
  { key: 'pagedown', command: 'page-down', scope: 'dashboard', help: 'timeline: one page down' },
  { key: 'home', command: 'select-first', scope: 'dashboard', help: 'timeline: first event' },
  { key: 'end', command: 'follow', scope: 'dashboard', help: 'timeline: follow the newest event' },
  { key: 'enter', command: 'open-event', scope: 'dashboard', help: 'open the selected event' },
  { key: 'f', command: 'filter-next', scope: 'dashboard', help: 'timeline: next type filter' },
  { key: 'F', command: 'filter-previous', scope: 'dashboard', help: 'timeline: previous type filter' },
  { key: 'tab', command: 'next-pane', scope: 'dashboard', help: 'next panel (checkpoint, goal, tool, progress)', label: 'panel' },
  { key: 'shift+tab', command: 'previous-pane', scope: 'dashboard', help: 'previous panel' },
  { key: '[', command: 'checkpoint-previous', scope: 'dashboard', help: 'checkpoint: show the previous one (tool call panel: the previous call)' },
  { key: ']', command: 'checkpoint-next', scope: 'dashboard', help: 'checkpoint: show the next one (tool call panel: the next call)' },
  { key: 'x', command: 'acknowledge-alert', scope: 'dashboard', help: 'acknowledge the alert banner', label: 'ack alert' },
  // ---- everywhere on the dashboard
  { key: '/', command: 'open-command-bar', scope: 'global', help: 'command bar (/goal, /budget, /stop, /help)', label: 'command' },
  { key: '?', command: 'help', scope: 'global', help: 'this help', label: 'help' },
  { key: 'q', command: 'quit', scope: 'global', help: 'quit (asks first while a run is live)', label: 'quit' },
  { key: 'ctrl+c', command: 'interrupt', scope: 'global', help: 'once: pause at the next safe point; twice: quit' },
  { key: 'ctrl+z', command: 'suspend', scope: 'global', help: 'suspend (the run waits; fg resumes; works in every view)' },
  // ---- overlays
  { key: 'escape', command: 'close', scope: 'help', help: 'close help', label: 'close' },
  { key: '?', command: 'close', scope: 'help', help: 'close help' },
  { key: 'q', command: 'close', scope: 'help', help: 'close help' },
  { key: 'up', command: 'scroll-up', scope: 'help', help: 'scroll', label: 'up' },
  { key: 'down', command: 'scroll-down', scope: 'help', help: 'scroll', label: 'down' },
  { key: 'pageup', command: 'scroll-page-up', scope: 'help', help: 'scroll a page', label: 'page up' },
  { key: 'pagedown', command: 'scroll-page-down', scope: 'help', help: 'scroll a page', label: 'page down' },
  { key: 'escape', command: 'close', scope: 'event', help: 'close the event', label: 'close' },
  { key: 'enter', command: 'close', scope: 'event', help: 'close the event' },
  { key: 'up', command: 'scroll-up', scope: 'event', help: 'scroll', label: 'up' },
  { key: 'down', command: 'scroll-down', scope: 'event', help: 'scroll', label: 'down' },
  { key: 'pageup', command: 'scroll-page-up', scope: 'event', help: 'scroll a page', label: 'page up' },
  { key: 'pagedown', command: 'scroll-page-down', scope: 'event', help: 'scroll a page', label: 'page down' },
  { key: 'up', command: 'scroll-up', scope: 'args', help: 'scroll up', label: 'up' },
  { key: 'down', command: 'scroll-down', scope: 'args', help: 'scroll down', label: 'down' },
  { key: 'pageup', command: 'scroll-page-up', scope: 'args', help: 'scroll a page up', label: 'page up' },
  { key: 'pagedown', command: 'scroll-page-down', scope: 'args', help: 'scroll a page down', label: 'page down' },
  { key: 'home', command: 'scroll-first', scope: 'args', help: 'the first row', label: 'first' },
  { key: 'end', command: 'scroll-last', scope: 'args', help: 'the last row', label: 'last' },
  { key: 'escape', command: 'close', scope: 'args', help: 'back to the prompt', label: 'back to the prompt', brief: 'back' },
  { key: 'v', command: 'close', scope: 'args', help: 'back to the prompt' },
  { key: 'y', command: 'quit-yes', scope: 'quit', help: 'quit', label: 'quit' },
  { key: 'enter', command: 'quit-yes', scope: 'quit', help: 'quit' },
  { key: 'ctrl+c', command: 'quit-yes', scope: 'quit', help: 'quit' },
  { key: 'n', command: 'quit-no', scope: 'quit', help: 'stay', label: 'stay' },
  { key: 'escape', command: 'quit-no', scope: 'quit', help: 'stay' },
  // ---- text inputs
  { key: 'enter', command: 'submit', scope: 'completion', help: 'run the line as typed (never just the highlighted item)' },
  { key: 'tab', command: 'complete', scope: 'completion', help: 'take the highlighted completion' },
  { key: 'up', command: 'history-previous', scope: 'completion', help: 'highlight the previous completion' },
  { key: 'down', command: 'history-next', scope: 'completion', help: 'highlight the next completion' },
  { key: 'escape', command: 'cancel', scope: 'completion', help: 'close the bar and its completion list' },
  { key: 'enter', command: 'submit', scope: 'bar', help: 'run the command' },
  { key: 'escape', command: 'cancel', scope: 'bar', help: 'close the bar' },
  { key: 'ctrl+c', command: 'cancel', scope: 'bar', help: 'close the bar' },
  { key: 'tab', command: 'complete', scope: 'bar', help: 'complete the command' },
  { key: 'up', command: 'history-previous', scope: 'bar', help: 'previous command' },
  { key: 'down', command: 'history-next', scope: 'bar', help: 'next command' },
  { key: 'enter', command: 'submit', scope: 'note', help: 'deny with this note', label: 'deny with this note', brief: 'deny' },
  { key: 'escape', command: 'cancel', scope: 'note', help: 'back to the prompt', label: 'back to the prompt', brief: 'back' },
  { key: 'ctrl+c', command: 'cancel', scope: 'note', help: 'back to the prompt' },
  ...(['bar', 'note'] as const).flatMap((scope): KeyBinding[] => [
    { key: 'left', command: 'cursor-left', scope, help: 'cursor left' },
    { key: 'right', command: 'cursor-right', scope, help: 'cursor right' },
    { key: 'home', command: 'cursor-home', scope, help: 'start of line' },
    { key: 'ctrl+a', command: 'cursor-home', scope, help: 'start of line' },
    { key: 'end', command: 'cursor-end', scope, help: 'end of line' },
    { key: 'ctrl+e', command: 'cursor-end', scope, help: 'end of line' },
    { key: 'ctrl+left', command: 'word-left', scope, help: 'word left' },
    { key: 'meta+b', command: 'word-left', scope, help: 'word left' },
    { key: 'ctrl+right', command: 'word-right', scope, help: 'word right' },
    { key: 'meta+f', command: 'word-right', scope, help: 'word right' },
    { key: 'backspace', command: 'delete-back', scope, help: 'delete before the cursor' },
    { key: 'delete', command: 'delete-forward', scope, help: 'delete at the cursor' },
    { key: 'ctrl+d', command: 'delete-forward', scope, help: 'delete at the cursor' },
    { key: 'ctrl+w', command: 'delete-word', scope, help: 'delete the word before the cursor' },
    { key: 'meta+backspace', command: 'delete-word', scope, help: 'delete the word before the cursor' },
    { key: 'ctrl+k', command: 'delete-to-end', scope, help: 'delete to the end of the line' },
    { key: 'ctrl+u', command: 'clear-line', scope, help: 'clear the line' },
  ]),
];

/**
 * The prompt scope of a pause by why it paused: its keys are those the key map binds in
 * that scope (a spent budget offers `e`; stagnation, repetition and constraint pauses `r`).
 */
export function pauseScope(cause: PauseReason): Scope {
  switch (cause.kind) {
    case 'budget_exceeded':
      return 'budget-pause';
    case 'stagnation':
    case 'repetition':
    case 'constraint':
      return 'stagnation-pause';
    case 'operator':
      return 'operator-pause';
    case 'hook':
      return 'pause';
  }
}

/**
 * Whether a pause's prompt offers `command` (its scope binds it): the one definition of,
 * e.g., the pauses `r` redirects at, which a `/goal redirect` from the bar then answers.
 */
export function pauseOffers(cause: PauseReason, command: ConsoleCommand): boolean {
  const scope = pauseScope(cause);
  return KEYMAP.some((b) => b.scope === scope && b.command === command);
}

/** The binding a key has in the first of `scopes` (in priority order) that binds it, or `null`. */
export function bindingFor(name: string, scopes: readonly Scope[]): KeyBinding | null {
  if (name === '') return null;
  for (const scope of scopes) {
    const binding = KEYMAP.find((b) => b.scope === scope && b.key === name);
    if (binding) return binding;
  }
  return null;
}

/** The command a key triggers given the active scopes (highest priority first), or `null`. */
export function resolveKey(name: string, scopes: readonly Scope[]): ConsoleCommand | null {
  return bindingFor(name, scopes)?.command ?? null;
}

/** A scope's bindings grouped by command, in table order (keys of one command together). */
export interface BindingRow {
  keys: string[];
  command: ConsoleCommand;
  help: string;
  label?: string;
  brief?: string;
}

/** The bindings of one scope, one row per command. */
export function bindingsFor(scope: Scope): BindingRow[] {
  const rows: BindingRow[] = [];
  for (const b of KEYMAP) {
    if (b.scope !== scope) continue;
    const row = rows.find((r) => r.command === b.command);
    if (row) row.keys.push(b.key);
    else rows.push({ keys: [b.key], command: b.command, help: b.help, ...(b.label ? { label: b.label } : {}), ...(b.brief ? { brief: b.brief } : {}) });
  }
  return rows;
}

/**
 * The labelled bindings of a scope as key hints: `[y] approve once`, `[n] deny`; `omit`
 * leaves commands out; `brief`, each by its brief label where it has one (`[y] once`).
 */
export function keyHints(scope: Scope, omit: readonly ConsoleCommand[] = [], brief = false): string[] {
  return bindingsFor(scope)
    .filter((r) => r.label !== undefined && !omit.includes(r.command))
    .map((r) => `[${r.keys.map(keyLabel).join('/')}] ${(brief ? r.brief : undefined) ?? r.label}`);
}

/**
 * A footer's key line in `width` cells after `lead` (the run's state, e.g. `Run finished:
 * goal_met. `): every hint when they all fit; else the `kept` hints (help and quit: the way
 * to every other key and the way out) and as many of the others, in order, as fit, with `…`
 * where some were left out. A hint is never cut in two: where the kept hints do not fit,
 * their `short` forms (`short[i]` for `hints[i]`: the brief label and the first key,
 * `[esc] back`) are used, then single spaces between them, and then the last kept hints are
 * left out whole.
 *
 * `lead` may be given in several forms, longest first (`Pausing at the next safe point;
 * Ctrl+C again quits. `, then `Pausing; Ctrl+C quits. `): the first form that leaves room for
 * the kept hints is used, the last form (the one that says least) excepted; when none does,
 * the longest form the row holds (the state comes before any hint), and the shortest is
 * cut at a word (never in one) only when it is wider than the row.
 */
export function fitKeyLine(lead: string | readonly string[], hints: readonly string[], kept: readonly string[], width: number, short: readonly string[] = hints): string {
  const leads = typeof lead === 'string' ? [lead] : lead;
  // The last of several forms (`^C quits. `) says least: never chosen for the hints' sake.
  const withHints = leads.length > 1 ? leads.slice(0, -1) : leads;
  for (const form of withHints) {
    const line = withKeptHints(form, hints, kept, width, short);
    if (line !== null) return line;
  }
  const last = leads.find((form) => cellWidth(form) <= width) ?? leads[leads.length - 1] ?? '';
  if (cellWidth(last) > width) return wrapWords(last.trimEnd(), width)[0] ?? '';
  // Not even the kept hints fit in their short forms: the first of them that do, each whole.
  const room = width - cellWidth(last);
  const keptAt = hints.flatMap((h, i) => (kept.includes(h) ? [i] : []));
  const tail = ['…'];
  for (const i of keptAt) {
    const next = [...tail, short[i] ?? hints[i]!];
    if (cellWidth(next.join(' ')) > room) break;
    tail.splice(0, tail.length, ...next);
  }
  return last + (cellWidth(tail.join(' ')) <= room ? tail.join(' ') : '');
}

/**
 * {@link fitKeyLine} after one `lead`, when the `kept` hints fit after it (in their long or
 * short forms, spaced by two or one); `null` when they do not.
 */
function withKeptHints(lead: string, hints: readonly string[], kept: readonly string[], width: number, short: readonly string[]): string | null {
  const all = lead + hints.join('  ');
  if (cellWidth(all) <= width) return all;
  const keptAt = hints.flatMap((h, i) => (kept.includes(h) ? [i] : []));
  const room = width - cellWidth(lead);
  for (const [forms, gap] of [[hints, '  '], [short, '  '], [short, ' ']] as const) {
    const tail = ['…', ...keptAt.map((i) => forms[i] ?? hints[i]!)].join(gap);
    if (cellWidth(tail) > room) continue;
    const shown: string[] = [];
    let used = cellWidth(tail);
    for (const hint of hints) {
      if (kept.includes(hint)) continue;
      const cost = cellWidth(hint) + gap.length;
      if (used + cost > room) break;
      shown.push(hint);
      used += cost;
    }
    return lead + [...shown, tail].join(gap);
  }
  return null;
}

/**
 * The labelled bindings of a scope in their shortest form, in the order of {@link keyHints}:
 * the first key and the brief label (`[esc] back` for `[esc/v] back to the prompt`), for a
 * footer too narrow for the hints it keeps.
 */
export function shortHints(scope: Scope, omit: readonly ConsoleCommand[] = []): string[] {
  return bindingsFor(scope)
    .filter((r) => r.label !== undefined && !omit.includes(r.command))
    .map((r) => `[${keyLabel(r.keys[0]!)}] ${r.brief ?? r.label}`);
}

/** The keys of a scope's command in words, as prompts and titles name them: `esc, ? or q`. */
export function keysText(scope: Scope, command: ConsoleCommand): string {
  const keys = KEYMAP.filter((b) => b.scope === scope && b.command === command).map((b) => keyLabel(b.key));
  return keys.length <= 1 ? (keys[0] ?? '') : `${keys.slice(0, -1).join(', ')} or ${keys[keys.length - 1]}`;
}

/** What the footer's key line depends on: the overlay open, the text input open, the replay, the alert. */
export interface FooterView {
  overlay: 'help' | 'event' | 'quit' | 'args' | null;
  input: 'bar' | 'note' | null;
  replaying: boolean;
  alert: boolean;
  /** The quit confirmation's yes has armed (its stay works at once); absent: armed. */
  quitArmed?: boolean;
}

/**
 * The footer's key hints and the ones kept on a narrow line, for the keys that work now:
 * an overlay's own keys while it is open (it takes every key; the quit confirmation's yes
 * only once it has armed), the deny note's while it is typed, else the replay's, the
 * dashboard's and the global ones (`x` only while an alert waits). Prompt keys are not
 * here: the prompt lists its own.
 */
export function footerHints(view: FooterView): { hints: string[]; kept: string[]; short: string[] } {
  const own = view.overlay ?? (view.input === 'note' ? 'note' : null);
  if (own) {
    // Until the quit confirmation arms, its yes does nothing: only the keys that work are listed.
    const waiting: ConsoleCommand[] = own === 'quit' && view.quitArmed === false ? ['quit-yes'] : [];
    const hints = keyHints(own, waiting);
    const short = shortHints(own, waiting);
    const closing = new Set<ConsoleCommand>(['close', 'cancel', 'quit-yes', 'quit-no', 'submit']);
    const kept = bindingsFor(own)
      .filter((r) => r.label !== undefined && closing.has(r.command) && !waiting.includes(r.command))
      .map((r) => `[${r.keys.map(keyLabel).join('/')}] ${r.label}`);
    return { hints, kept, short };
  }
  const hints = [...(view.replaying ? keyHints('replay') : []), ...keyHints('dashboard', view.alert ? [] : ['acknowledge-alert']), ...keyHints('global')];
  const short = [...(view.replaying ? shortHints('replay') : []), ...shortHints('dashboard', view.alert ? [] : ['acknowledge-alert']), ...shortHints('global')];
  const kept = keyHints(
    'global',
    bindingsFor('global')
      .map((row) => row.command)
      .filter((command) => command !== 'help' && command !== 'quit'),
  );
  return { hints, kept, short };
}

/** The key hints of a scope on one line. */
export function keyLine(scope: Scope): string {
  return keyHints(scope).join('  ');
}

/** How help and the footer print a key. */
export function keyLabel(key: string): string {
  const names: Record<string, string> = { escape: 'esc', pageup: 'pgup', pagedown: 'pgdn', left: '←', right: '→', up: '↑', down: '↓' };
  return names[key] ?? key;
}

/** Titles of the scopes in the help overlay, in the order help lists them. */
export const SCOPE_TITLES: ReadonlyArray<readonly [Scope, string]> = [
  ['global', 'Anywhere on the dashboard'],
  ['dashboard', 'Timeline and panels'],
  ['tool-panel', 'Tool call panel (Tab to it): earlier calls of the run'],
  ['tool-history', 'Tool call panel, showing an earlier call'],
  ['tool', 'Approval prompt'],
  ['budget-pause', 'Budget pause'],
  ['stagnation-pause', 'Stagnation or repetition pause'],
  ['operator-pause', 'Operator pause (Ctrl+C)'],
  ['pause', 'Other pauses'],
  ['gate', 'Resuming a run'],
  ['start-gate', 'Warnings before a run starts'],
  ['reload', 'A reload of loop.yaml waiting for your key'],
  ['replay', 'Replay'],
  ['event', 'An opened event'],
  ['args', 'Arguments of the approval prompt (v)'],
  ['quit', 'Quit confirmation'],
  ['help', 'This help'],
  ['bar', 'Command bar'],
  ['completion', 'Command bar, completion list open'],
  ['note', 'Deny note'],
];
