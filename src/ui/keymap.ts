/** Named console commands a key can trigger. */
export type ConsoleCommand = 'approve' | 'deny' | 'continue' | 'stop' | 'extend' | 'redirect' | 'open-command-bar' | 'quit' | 'confirm';

/**
 * When a binding applies: always, or only while a given prompt is shown (`gate`: the
 * confirmation before a resumed run continues).
 */
export type KeyContext = 'tool' | 'pause' | 'gate' | 'none';

/** One row of the key map: the key as typed, the command, when it applies and what help says. */
export interface KeyBinding {
  key: string;
  command: ConsoleCommand;
  when: KeyContext | 'always';
  help: string;
}

/** The one key map of the console. Help and the footer are generated from it. */
export const KEYMAP: readonly KeyBinding[] = [
  { key: 'y', command: 'approve', when: 'tool', help: 'approve the tool call' },
  { key: 'n', command: 'deny', when: 'tool', help: 'deny the tool call (the agent is told)' },
  { key: 'c', command: 'continue', when: 'pause', help: 'continue the paused run' },
  { key: 'e', command: 'extend', when: 'pause', help: 'budget pause: raise the spent limit by its increment and continue' },
  { key: 'r', command: 'redirect', when: 'pause', help: 'redirect the goal (opens /goal redirect)' },
  { key: 's', command: 'stop', when: 'pause', help: 'stop the run' },
  { key: 'enter', command: 'confirm', when: 'gate', help: 'resume the run' },
  { key: '/', command: 'open-command-bar', when: 'always', help: 'command bar (/goal ..., /budget ...)' },
  { key: 'q', command: 'quit', when: 'always', help: 'quit (the log is kept; resume later)' },
  { key: 'ctrl+c', command: 'quit', when: 'always', help: 'quit' },
];

/** The key as the key map spells it, from Ink's `useInput` arguments. */
export function keyName(input: string, key: { ctrl: boolean; return?: boolean }): string {
  if (key.return) return 'enter';
  // A pasted chunk arrives as one multi-character input: it is text, never a key.
  if ([...input].length !== 1) return '';
  return key.ctrl ? `ctrl+${input}` : input;
}

/** The command a key triggers in a context, or `null` when the key does nothing there. */
export function resolveKey(name: string, context: KeyContext): ConsoleCommand | null {
  const binding = KEYMAP.find((b) => b.key === name && (b.when === 'always' || b.when === context));
  return binding?.command ?? null;
}

/** The bindings that apply in a context, for the footer. */
export function bindingsFor(context: KeyContext): KeyBinding[] {
  return KEYMAP.filter((b) => b.when === context || (b.when === 'always' && b.key !== 'ctrl+c'));
}
