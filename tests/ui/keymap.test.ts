// The key map as a table: for each command, the keys that trigger it in its scopes and
// keys that must not. Pure: no rendering.
import { describe, expect, test } from 'vitest';
import { INITIAL_STATE, type PendingYield, type SessionState } from '../../src/engine/index.js';
import { parsePauseReason } from '../../src/engine/reasons.js';
import { BAR_COMMANDS } from '../../src/ui/commands.js';
import { helpRows } from '../../src/ui/HelpOverlay.js';
import { createKeyDecoder } from '../../src/ui/terminal-input.js';
import { bindingsFor, KEYMAP, keyLabel, keyLine, resolveKey, SCOPE_TITLES, type ConsoleCommand, type Scope } from '../../src/ui/keymap.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { dashboardScopes, promptScope } from '../../src/ui/use-console-keys.js';

/** The scopes of the dashboard with a prompt of `prompt` on screen (and armed). */
const DASH = (prompt?: Scope): Scope[] => [...(prompt ? [prompt] : []), 'dashboard', 'global'];

interface Row {
  command: ConsoleCommand;
  /** Where it applies, highest priority first. */
  scopes: Scope[];
  keys: string[];
  /** Keys that must not trigger it there (shifted, ctrl, words, neighbours, pasted text). */
  not: string[];
}

const ROWS: Row[] = [
  { command: 'approve', scopes: DASH('tool'), keys: ['y'], not: ['Y', 'ctrl+y', 'yes', 'enter', ''] },
  { command: 'approve-always', scopes: DASH('tool'), keys: ['a'], not: ['A', 'ctrl+a', 'y', 'always'] },
  { command: 'approve-wider', scopes: DASH('tool'), keys: ['A'], not: ['a', 'ctrl+a', 'ctrl+A', 'shift+a', 'y'] },
  { command: 'deny', scopes: DASH('tool'), keys: ['n'], not: ['N', 'ctrl+n', 'no', 'escape'] },
  { command: 'deny-with-note', scopes: DASH('tool'), keys: ['d'], not: ['D', 'ctrl+d', 'n'] },
  { command: 'expand-args', scopes: DASH('tool'), keys: ['v'], not: ['V', 'ctrl+v'] },
  { command: 'extend', scopes: DASH('budget-pause'), keys: ['e'], not: ['E', 'ctrl+e', 'c'] },
  { command: 'continue', scopes: DASH('budget-pause'), keys: ['c'], not: ['C', 'ctrl+c', 'enter'] },
  { command: 'continue', scopes: DASH('stagnation-pause'), keys: ['c'], not: ['C', 'y'] },
  { command: 'continue', scopes: DASH('operator-pause'), keys: ['c'], not: ['C', 'y'] },
  { command: 'continue', scopes: DASH('pause'), keys: ['c'], not: ['C', 'y'] },
  { command: 'redirect', scopes: DASH('stagnation-pause'), keys: ['r'], not: ['R', 'ctrl+r'] },
  { command: 'stop', scopes: DASH('budget-pause'), keys: ['s'], not: ['S', 'ctrl+s', 'n'] },
  { command: 'stop', scopes: DASH('stagnation-pause'), keys: ['s'], not: ['S', 'q'] },
  { command: 'stop', scopes: DASH('operator-pause'), keys: ['s'], not: ['S'] },
  { command: 'stop', scopes: DASH('pause'), keys: ['s'], not: ['S'] },
  { command: 'confirm', scopes: DASH('gate'), keys: ['enter'], not: ['y', 'space', ' '] },
  { command: 'quit', scopes: DASH('gate'), keys: ['q'], not: ['Q', 'ctrl+q'] },
  { command: 'confirm', scopes: DASH('start-gate'), keys: ['enter'], not: ['y', 'space', ' ', 'c'] },
  { command: 'quit', scopes: DASH('start-gate'), keys: ['q'], not: ['Q', 'ctrl+q', 'n'] },
  { command: 'reload-apply', scopes: DASH('reload'), keys: ['y'], not: ['Y', 'enter', 'a'] },
  { command: 'reload-keep', scopes: DASH('reload'), keys: ['n'], not: ['N', 'escape', 'q'] },
  { command: 'replay-back', scopes: ['replay', 'dashboard', 'global'], keys: ['left'], not: ['up', 'h', 'shift+tab'] },
  { command: 'replay-forward', scopes: ['replay', 'dashboard', 'global'], keys: ['right'], not: ['down', 'l', 'tab'] },
  { command: 'replay-start', scopes: ['replay', 'dashboard', 'global'], keys: ['home'], not: ['pageup', 'g'] },
  { command: 'replay-end', scopes: ['replay', 'dashboard', 'global'], keys: ['end'], not: ['pagedown', 'G'] },
  { command: 'select-up', scopes: DASH(), keys: ['up'], not: ['k', 'left'] },
  { command: 'select-down', scopes: DASH(), keys: ['down'], not: ['j', 'right'] },
  { command: 'page-up', scopes: DASH(), keys: ['pageup'], not: ['up'] },
  { command: 'page-down', scopes: DASH(), keys: ['pagedown'], not: ['down'] },
  { command: 'select-first', scopes: DASH(), keys: ['home'], not: ['g'] },
  { command: 'follow', scopes: DASH(), keys: ['end'], not: ['G', 'F'] },
  { command: 'open-event', scopes: DASH(), keys: ['enter'], not: ['o', ' '] },
  { command: 'filter-next', scopes: DASH(), keys: ['f'], not: ['ctrl+f'] },
  { command: 'filter-previous', scopes: DASH(), keys: ['F'], not: ['ctrl+F'] },
  { command: 'next-pane', scopes: DASH(), keys: ['tab'], not: ['\t', 'ctrl+i'] },
  { command: 'previous-pane', scopes: DASH(), keys: ['shift+tab'], not: ['tab'] },
  { command: 'checkpoint-previous', scopes: DASH(), keys: ['['], not: ['{', '('] },
  { command: 'checkpoint-next', scopes: DASH(), keys: [']'], not: ['}', ')'] },
  { command: 'acknowledge-alert', scopes: DASH(), keys: ['x'], not: ['X', 'ctrl+x'] },
  { command: 'tool-older', scopes: ['tool-panel', 'replay', 'dashboard', 'global'], keys: ['['], not: ['{', 'left', 'up'] },
  { command: 'tool-newer', scopes: ['tool-panel', 'replay', 'dashboard', 'global'], keys: [']'], not: ['}', 'right', 'down'] },
  { command: 'tool-live', scopes: ['tool-history', 'tool-panel', 'replay', 'dashboard', 'global'], keys: ['end'], not: ['home', 'escape', 'G'] },
  { command: 'tool-open', scopes: ['tool-history', 'tool-panel', 'dashboard', 'global'], keys: ['enter'], not: ['o', ' ', 'right'] },
  // The tool call panel shown but showing the live call: End is the replay's or the timeline's, [ and ] not the checkpoints'.
  { command: 'replay-end', scopes: ['tool-panel', 'replay', 'dashboard', 'global'], keys: ['end'], not: [] },
  { command: 'follow', scopes: ['tool-panel', 'dashboard', 'global'], keys: ['end'], not: [] },
  { command: 'open-event', scopes: ['tool-panel', 'dashboard', 'global'], keys: ['enter'], not: [] },
  { command: 'checkpoint-previous', scopes: ['tool-panel', 'dashboard', 'global'], keys: [], not: ['['] },
  { command: 'open-command-bar', scopes: DASH(), keys: ['/'], not: [':', '\\'] },
  { command: 'help', scopes: DASH(), keys: ['?'], not: ['h', 'ctrl+h', 'F1'] },
  { command: 'quit', scopes: DASH(), keys: ['q'], not: ['Q', 'ctrl+q', 'quit', 'escape'] },
  { command: 'interrupt', scopes: DASH(), keys: ['ctrl+c'], not: ['c', 'C', 'ctrl+C'] },
  { command: 'suspend', scopes: DASH(), keys: ['ctrl+z'], not: ['z', 'Z'] },
  { command: 'close', scopes: ['help'], keys: ['escape', '?', 'q'], not: ['enter'] },
  { command: 'close', scopes: ['event'], keys: ['escape', 'enter'], not: ['q'] },
  { command: 'scroll-up', scopes: ['help'], keys: ['up'], not: ['k'] },
  { command: 'scroll-down', scopes: ['event'], keys: ['down'], not: ['j'] },
  { command: 'scroll-down', scopes: ['help'], keys: ['down'], not: ['j'] },
  { command: 'scroll-up', scopes: ['event'], keys: ['up'], not: ['k'] },
  { command: 'scroll-page-up', scopes: ['help', 'event'], keys: ['pageup'], not: ['up', 'b'] },
  { command: 'scroll-page-down', scopes: ['help', 'event'], keys: ['pagedown'], not: ['down', ' '] },
  { command: 'close', scopes: ['args'], keys: ['escape', 'v'], not: ['q', 'y'] },
  { command: 'scroll-up', scopes: ['args'], keys: ['up'], not: ['k'] },
  { command: 'scroll-down', scopes: ['args'], keys: ['down'], not: ['j'] },
  { command: 'scroll-page-up', scopes: ['args'], keys: ['pageup'], not: ['b'] },
  { command: 'scroll-page-down', scopes: ['args'], keys: ['pagedown'], not: [' '] },
  { command: 'scroll-first', scopes: ['args'], keys: ['home'], not: ['g', 'pageup'] },
  { command: 'scroll-last', scopes: ['args'], keys: ['end'], not: ['G', 'pagedown'] },
  { command: 'quit-yes', scopes: ['quit'], keys: ['y', 'enter', 'ctrl+c'], not: ['Y', 'q'] },
  { command: 'quit-no', scopes: ['quit'], keys: ['n', 'escape'], not: ['N'] },
  { command: 'submit', scopes: ['completion', 'bar'], keys: ['enter'], not: ['tab'] },
  { command: 'complete', scopes: ['completion', 'bar'], keys: ['tab'], not: ['enter', 'right'] },
  { command: 'complete', scopes: ['bar'], keys: ['tab'], not: ['enter'] },
  { command: 'history-previous', scopes: ['completion', 'bar'], keys: ['up'], not: ['k'] },
  { command: 'history-next', scopes: ['completion', 'bar'], keys: ['down'], not: ['j'] },
  { command: 'cancel', scopes: ['completion', 'bar'], keys: ['escape'], not: ['q'] },
  { command: 'history-previous', scopes: ['bar'], keys: ['up'], not: ['ctrl+p', 'k'] },
  { command: 'history-next', scopes: ['bar'], keys: ['down'], not: ['ctrl+n', 'j'] },
  { command: 'cancel', scopes: ['bar'], keys: ['escape', 'ctrl+c'], not: ['q'] },
  { command: 'cursor-left', scopes: ['bar'], keys: ['left'], not: ['h'] },
  { command: 'cursor-right', scopes: ['note'], keys: ['right'], not: ['l'] },
  { command: 'cursor-home', scopes: ['bar'], keys: ['home', 'ctrl+a'], not: ['a'] },
  { command: 'cursor-end', scopes: ['note'], keys: ['end', 'ctrl+e'], not: ['e'] },
  { command: 'delete-back', scopes: ['bar'], keys: ['backspace'], not: ['ctrl+h'] },
  { command: 'delete-word', scopes: ['note'], keys: ['ctrl+w'], not: ['w'] },
  { command: 'clear-line', scopes: ['bar'], keys: ['ctrl+u'], not: ['u'] },
  { command: 'delete-forward', scopes: ['bar'], keys: ['delete', 'ctrl+d'], not: ['backspace', 'd'] },
  { command: 'delete-to-end', scopes: ['note'], keys: ['ctrl+k'], not: ['k'] },
  { command: 'word-left', scopes: ['bar'], keys: ['ctrl+left', 'meta+b'], not: ['b'] },
  { command: 'word-right', scopes: ['note'], keys: ['ctrl+right', 'meta+f'], not: ['f'] },
  { command: 'delete-word', scopes: ['bar'], keys: ['meta+backspace'], not: ['backspace'] },
  { command: 'submit', scopes: ['note'], keys: ['enter'], not: ['y', 'n', 'd'] },
  { command: 'cancel', scopes: ['note'], keys: ['escape', 'ctrl+c'], not: ['n', 'q'] },
];

describe('the key map table', () => {
  test.each(ROWS.flatMap((row) => row.keys.map((key) => [key, row.scopes.join('>'), row.command] as const)))(
    '%j in %s is %s',
    (key, scopes, command) => {
      expect(resolveKey(key, scopes.split('>') as Scope[])).toBe(command);
    },
  );

  test.each(ROWS.flatMap((row) => row.not.map((key) => [key, row.scopes.join('>'), row.command] as const)))(
    '%j in %s is not %s',
    (key, scopes, command) => {
      expect(resolveKey(key, scopes.split('>') as Scope[])).not.toBe(command);
    },
  );

  test('the table covers every binding of the key map', () => {
    for (const b of KEYMAP) {
      const covered = ROWS.some((row) => row.command === b.command && row.keys.includes(b.key) && row.scopes.includes(b.scope));
      const elsewhere = ['bar', 'note'].includes(b.scope) && ROWS.some((row) => row.command === b.command && row.keys.includes(b.key));
      expect(covered || elsewhere, `${b.key} → ${b.command} in ${b.scope}`).toBe(true);
    }
  });

  test('no key is bound twice in one scope', () => {
    const seen = new Set<string>();
    for (const b of KEYMAP) {
      const id = `${b.scope} ${b.key}`;
      expect(seen.has(id), id).toBe(false);
      seen.add(id);
    }
  });

  test('text-input scopes bind no printable character: typing there is always text', () => {
    for (const b of KEYMAP.filter((k) => ['bar', 'note', 'completion'].includes(k.scope))) {
      expect([...b.key].length === 1, `${b.key} in ${b.scope}`).toBe(false);
    }
  });

  test('prompt keys do nothing without their prompt: y, a, A, n, d, c, e, r, s on the bare dashboard', () => {
    for (const key of ['y', 'a', 'A', 'n', 'd', 'v', 'c', 'e', 'r', 's']) expect(resolveKey(key, DASH())).toBeNull();
  });
});

describe('scopes from the state', () => {
  const base = createConsoleStore().getState();
  const tool: PendingYield = { kind: 'tool', call: { id: 't1', name: 'shell', args: { command: 'ls' } }, seq: 8 };
  const pause = (reason: string): PendingYield => ({ kind: 'pause', reason, cause: parsePauseReason(reason), prompt: '?', from: 'EXECUTING', seq: 12 });
  const withPending = (pending: PendingYield, armed: number | null) => ({ ...base, session: { ...INITIAL_STATE, pending }, armed });

  test('a prompt contributes its scope only once armed', () => {
    expect(promptScope(withPending(tool, null))).toBeNull();
    expect(promptScope(withPending(tool, 7))).toBeNull();
    expect(promptScope(withPending(tool, 8))).toBe('tool');
    expect(dashboardScopes(withPending(tool, null))).toEqual(['dashboard', 'global']);
    expect(dashboardScopes(withPending(tool, 8))).toEqual(['tool', 'dashboard', 'global']);
  });

  test('each pause reason has its scope', () => {
    // A budget pause offers e while the limit is spent; once raised past its use (or lifted), c and s only.
    const spent: SessionState['limits'] = { ...INITIAL_STATE.limits, turns: 3 };
    const atBudget = (limits: typeof spent) => ({ ...base, session: { ...INITIAL_STATE, pending: pause('budget_exceeded:turns'), exhausted: 'turns' as const, limits, usage: { ...INITIAL_STATE.usage, turns: 3 } }, armed: 12 });
    expect(promptScope(atBudget(spent))).toBe('budget-pause');
    expect(promptScope(atBudget({ ...spent, turns: 13 }))).toBe('pause');
    expect(promptScope(atBudget({ ...spent, turns: null }))).toBe('pause');
    expect(promptScope(withPending(pause('stagnation'), 12))).toBe('stagnation-pause');
    expect(promptScope(withPending(pause('repetition'), 12))).toBe('stagnation-pause');
    expect(promptScope(withPending(pause('operator'), 12))).toBe('operator-pause');
    expect(promptScope(withPending(pause('hook'), 12))).toBe('pause');
  });

  test('a reload waiting for a key comes before the pending prompt, once armed on its own seq', () => {
    const reloadPending = { seq: 20, file: '/x/loop.yaml', inside: false, changes: [] };
    const both = (armed: number | null) => ({ ...base, session: { ...INITIAL_STATE, pending: tool, reloadPending }, armed });
    expect(promptScope(both(8))).toBeNull();
    expect(promptScope(both(20))).toBe('reload');
    expect(dashboardScopes(both(20))).toEqual(['reload', 'dashboard', 'global']);
  });

  test('the tool call panel has its scopes while it is shown, tool-history while it shows an earlier call', () => {
    const wide = { single: false };
    const single = { single: true };
    expect(dashboardScopes({ ...base, pane: 'tool' }, wide)).toEqual(['tool-panel', 'dashboard', 'global']);
    expect(dashboardScopes({ ...base, pane: 'tool', toolCall: 3 }, wide)).toEqual(['tool-history', 'tool-panel', 'dashboard', 'global']);
    expect(dashboardScopes({ ...base, pane: 'goal', toolCall: 3 }, wide)).toEqual(['dashboard', 'global']);
    // One view at a time (small terminal): the panel is shown only when it is the view.
    expect(dashboardScopes({ ...base, pane: 'tool', compactBody: 'timeline' }, single)).toEqual(['dashboard', 'global']);
    expect(dashboardScopes({ ...base, pane: 'tool', compactBody: 'tool' }, single)).toEqual(['tool-panel', 'dashboard', 'global']);
    // An armed prompt comes first; a replay's keys come after the panel's.
    expect(dashboardScopes({ ...withPending(tool, 8), pane: 'tool' }, wide)).toEqual(['tool', 'tool-panel', 'dashboard', 'global']);
    expect(dashboardScopes({ ...base, pane: 'tool', toolCall: 0, replay: { index: 3, total: 9 } }, wide)).toEqual(['tool-history', 'tool-panel', 'replay', 'dashboard', 'global']);
  });

  test('a replay has no prompt scope, and the gate needs no arming', () => {
    expect(dashboardScopes({ ...withPending(tool, 8), replay: { index: 3, total: 9 } })).toEqual(['replay', 'dashboard', 'global']);
    expect(dashboardScopes({ ...base, gate: { kind: 'resume', warnings: [] } })).toEqual(['gate', 'dashboard', 'global']);
    expect(dashboardScopes({ ...base, gate: { kind: 'start', warnings: ['w'] } })).toEqual(['start-gate', 'dashboard', 'global']);
  });
});

describe('terminal input: each read decoded into the keys a terminal sent', () => {
  /** The keys of each read, as `name:input:source`. */
  function decode(...reads: string[]): string[][] {
    const out: string[][] = [];
    const decoder = createKeyDecoder((keys) => out.push(keys.map((k) => `${k.name}:${k.input}:${k.source}`)));
    for (const read of reads) decoder.push(read);
    decoder.dispose();
    return out;
  }
  test.each([
    ['y', [['y:y:key']]],
    ['Y', [['Y:Y:key']]],
    ['\u0003', [['ctrl+c::key']]],
    ['\r', [['enter::key']]],
    ['\t', [['tab::key']]],
    ['\u001b[Z', [['shift+tab::key']]],
    ['\u001b[A', [['up::key']]],
    ['\u001bOB', [['down::key']]],
    ['\u001b[D', [['left::key']]],
    ['\u001b[C', [['right::key']]],
    ['\u001b[H', [['home::key']]],
    ['\u001b[4~', [['end::key']]],
    ['\u001b[5~', [['pageup::key']]],
    ['\u001b[6~', [['pagedown::key']]],
    ['\u007f', [['backspace::key']]],
    ['\b', [['backspace::key']]],
    ['\u001b[3~', [['delete::key']]],
    ['\u0004', [['ctrl+d::key']]],
    ['\u000b', [['ctrl+k::key']]],
    ['\u001b[1;5D', [['ctrl+left::key']]],
    ['\u001b[1;5C', [['ctrl+right::key']]],
    ['\u001bb', [['meta+b::key']]],
    ['\u001bf', [['meta+f::key']]],
    ['\u001b\u007f', [['meta+backspace::key']]],
    ['🚀', [['🚀:🚀:key']]],
    ['\u001b[I', [['::key']]], // a focus report types nothing
  ] as const)('%j', (read, keys) => {
    expect(decode(read)).toEqual(keys);
  });

  test('a read of several keys is each key, marked as one of a chunk', () => {
    expect(decode('yy')).toEqual([['y:y:chunk', 'y:y:chunk']]);
    expect(decode('ab\u007fc')).toEqual([['a:a:chunk', 'b:b:chunk', 'backspace::chunk', 'c:c:chunk']]);
    expect(decode('st\u0017\u0015\r')).toEqual([['s:s:chunk', 't:t:chunk', 'ctrl+w::chunk', 'ctrl+u::chunk', 'enter::chunk']]);
    expect(decode('goal status\r')).toEqual([[...[...'goal status'].map((c) => `${c}:${c}:chunk`), 'enter::chunk']]);
  });

  test.each([
    ['goal add-constraint foo\rbar', [':goal add-constraint foo\rbar:paste']],
    ['y\ry', [':y\ry:paste']],
    ['one\r\ntwo\r\n', [':one\r\ntwo\r\n:paste']],
    ['a\nb', [':a\nb:paste']],
    ['\rgoal status', [':\rgoal status:paste']],
    // Keys that type nothing stay keys typed ahead: they may edit or pause, never answer.
    ['foo\r\u001b[Dbar', [':foo\r:paste', 'left::chunk', ':bar:paste']],
    // Another line break after the first: a copied line with a blank one, or a Windows line end.
    ['/stop\n\n', [':/stop\n\n:paste']],
    ['goal add-constraint A7\r\n', [':goal add-constraint A7\r\n:paste']],
    ['y\r\r', [':y\r\r:paste']],
  ] as const)('a read with text after a line break is a paste its terminal did not bracket: %j', (read, keys) => {
    expect(decode(read)).toEqual([keys]);
  });

  test('the same key alone in reads less than 150 ms apart is a held key repeating; after a longer pause within a repeat delay it may be held; a pause longer than that makes it a press', () => {
    let clock = 0;
    const out: string[] = [];
    // `+N` marks a key that follows itself N ms later: a held key's slow repeat or a new press (afterSame).
    const decoder = createKeyDecoder((keys) => out.push(keys.map((k) => `${k.name}:${k.source}${k.afterSame === undefined ? '' : `+${k.afterSame}`}`).join(' ')), { now: () => clock });
    const at = (ms: number, read: string) => {
      clock = ms;
      decoder.push(read);
    };
    at(0, 'y'); // pressed
    at(500, 'y'); // auto-repeat starts after its delay: held, or pressed again; the keys after it tell
    at(533, 'y');
    at(566, 'y');
    at(2000, 'y'); // held for seconds: every repeat is 33 ms after the one before
    for (let ms = 2033; ms < 2200; ms += 33) at(ms, 'y');
    at(2400, 'y'); // released and pressed again within a repeat delay
    at(2440, 'n'); // another key soon after is a press
    at(2470, 'n');
    at(2480, 'nn'); // a chunk is a chunk
    at(2500, 'n'); // ... and the key after it repeats its last key
    at(5500, 'n'); // longer ago than any repeat delay: a press
    at(5700, '\u001b[200~n\u001b[201~'); // a paste is a paste
    at(5800, 'n'); // ... and the key after a paste repeats nothing
    decoder.dispose();
    expect(out).toEqual([
      'y:key', 'y:key+500', 'y:repeat+33', 'y:repeat+33', 'y:key+1434',
      'y:repeat+33', 'y:repeat+33', 'y:repeat+33', 'y:repeat+33', 'y:repeat+33', 'y:repeat+33',
      'y:key+202', 'n:key', 'n:repeat+30', 'n:chunk n:chunk', 'n:repeat+20', 'n:key', ':paste', 'n:key',
    ]);
  });

  test('a bracketed paste is one paste however many reads it spans; its line breaks are text', () => {
    expect(decode('\u001b[200~keep\nthe', ' API\r\n\u001b[201~')).toEqual([[':keep\nthe API\r\n:paste']]);
    expect(decode('\u001b[200~y\u001b[201~')).toEqual([[':y:paste']]);
  });

  test('a Backspace resolves through the key map; a key of a chunk is a key', () => {
    expect(resolveKey(decodeOne('\u007f'), ['note'])).toBe('delete-back');
    expect(resolveKey(decodeOne('\u0017'), ['bar'])).toBe('delete-word');
  });
});

/** The name of the only key of a read. */
function decodeOne(read: string): string {
  let name = '';
  const decoder = createKeyDecoder((keys) => (name = keys[0]!.name));
  decoder.push(read);
  decoder.dispose();
  return name;
}

describe('help and key lines come from the key map', () => {
  test('help lists every binding of every scope, and every command-bar command', () => {
    const rows = helpRows();
    for (const [scope, title] of SCOPE_TITLES) {
      expect(rows).toContainEqual({ kind: 'title', text: title });
      for (const b of bindingsFor(scope)) expect(rows).toContainEqual({ kind: 'key', keys: b.keys.map(keyLabel).join(' '), text: b.help });
    }
    for (const b of KEYMAP) expect(rows.some((r) => r.keys?.split(' ').includes(keyLabel(b.key)) && r.text === b.help), `${b.key} ${b.help}`).toBe(true);
    for (const c of BAR_COMMANDS) expect(rows).toContainEqual({ kind: 'key', keys: c.text.trim(), text: c.help });
    // Every scope in the key map has a section.
    expect(new Set(KEYMAP.map((b) => b.scope))).toEqual(new Set(SCOPE_TITLES.map(([scope]) => scope)));
  });

  test('each prompt lists exactly its own labelled keys', () => {
    expect(keyLine('tool')).toBe('[y] approve once  [a] always allow  [A] wider rule  [n] deny  [d] deny with note  [v] all args');
    expect(keyLine('budget-pause')).toBe('[e] extend and continue  [c] continue  [s] stop');
    expect(keyLine('stagnation-pause')).toBe('[c] continue  [r] redirect the goal  [s] stop');
    expect(keyLine('operator-pause')).toBe('[c] continue  [s] stop');
    expect(keyLine('gate')).toBe('[enter] resume  [q] quit');
    expect(keyLine('start-gate')).toBe('[enter] start the run  [q] quit');
    expect(keyLine('quit')).toBe('[y/enter/ctrl+c] quit  [n/esc] stay');
    expect(keyLine('global')).toBe('[/] command  [?] help  [q] quit');
  });
});
