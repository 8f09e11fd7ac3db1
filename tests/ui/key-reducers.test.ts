// The console's key reducers as tables: a state in, a command (or a typed key) in, the
// view slices' actions and the effects out; the view after those actions is read from a
// vanilla store holding the state. No terminal, no React.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, test } from 'vitest';
import { INITIAL_STATE, type LoopEvent, type PendingYield, type SessionState } from '../../src/engine/index.js';
import { parseOperatorCommand, type OperatorCommand } from '../../src/engine/operator-command.js';
import { lineOf, MAX_LINE_CHARS } from '../../src/ui/line-editor.js';
import { barReducer, commandDone, noteReducer, pasteReducer, submitLine } from '../../src/ui/reducers/bar.js';
import { dashboardReducer, globalReducer, replayReducer } from '../../src/ui/reducers/dashboard.js';
import { overlayReducer } from '../../src/ui/reducers/overlay.js';
import { gateReducer, pauseReducer, toolReducer } from '../../src/ui/reducers/prompt.js';
import { toolPanelReducer } from '../../src/ui/reducers/tool-panel.js';
import { dispatch, type Effect, type KeyInput, type KeyLayout, type Reduction } from '../../src/ui/reducers/reduction.js';
import { createConsoleStore } from '../../src/ui/store.js';
import { INITIAL_VIEW, type ViewState } from '../../src/ui/view.js';

const TOOL: PendingYield = { kind: 'tool', call: { id: 't1', name: 'shell', args: { command: 'ls' } }, seq: 8 };
const PAUSE: PendingYield = { kind: 'pause', reason: 'operator', cause: { kind: 'operator' }, prompt: '?', from: 'EXECUTING', seq: 12 };
const BUDGET: PendingYield = { kind: 'pause', reason: 'budget_exceeded:turns', cause: { kind: 'budget_exceeded', dimension: 'turns' }, prompt: '?', from: 'EXECUTING', seq: 12 };
const WIDE: KeyLayout = { single: false, page: 5, width: 80, body: 20 };
const NARROW: KeyLayout = { ...WIDE, single: true };

const event = (seq: number, type: LoopEvent['type'] = 'agent.notice'): LoopEvent => ({ seq, at: seq, session: 's', type, data: { text: `e${seq}` } }) as LoopEvent;
const EVENTS = [event(0), event(1), event(2), event(3)];

/** A live run (started, not over) with `session` and `view` changes. */
function input(session: Partial<SessionState> = {}, view: Partial<ViewState> = {}, more: Partial<KeyInput> = {}): KeyInput {
  return {
    session: { ...INITIAL_STATE, machine: { ...INITIAL_STATE.machine, started: true }, ...session },
    events: EVENTS,
    shown: EVENTS.length,
    replay: null,
    gate: null,
    ...INITIAL_VIEW,
    filter: 'all',
    ...view,
    ...more,
  };
}

/** The view fields of a state. */
function viewOf(state: ViewState): ViewState {
  return Object.fromEntries(Object.keys(INITIAL_VIEW).map((k) => [k, state[k as keyof ViewState]])) as unknown as ViewState;
}

/** The view after a reduction's actions run on a store holding `before`, and the reduction's effects. */
function run(before: KeyInput, reduction: Reduction): { view: ViewState; effects: Effect[] } {
  const store = createConsoleStore();
  store.setState(before);
  dispatch(store.getState(), reduction.actions);
  return { view: viewOf(store.getState()), effects: reduction.effects };
}

/** What a reduction changed in the view, and its effects. */
function diff(before: KeyInput, reduction: Reduction) {
  const after = run(before, reduction);
  const changed = Object.fromEntries(Object.entries(after.view).filter(([k, v]) => !isDeepStrictEqual(v, before[k as keyof ViewState])));
  return { changed, effects: after.effects };
}

describe('tool prompt', () => {
  test.each([
    ['approve', {}, [{ kind: 'answer', payload: { decision: 'approve' }, seq: 8 }]],
    ['deny', {}, [{ kind: 'answer', payload: { decision: 'deny' }, seq: 8 }]],
    ['deny-with-note', { input: 'note' }, []],
    ['expand-args', { overlay: 'args' }, []],
  ] as const)('%s', (command, changed, effects) => {
    const state = input({ pending: TOOL });
    expect(diff(state, toolReducer(state, command))).toEqual({ changed, effects });
  });

  test('always allow stores exactly the rule the prompt offers', () => {
    const [effect] = toolReducer(input({ pending: TOOL }), 'approve-always').effects;
    expect(effect).toMatchObject({ kind: 'answer', seq: 8, payload: { decision: 'approve', always: expect.any(String) } });
  });

  test('with no tool call pending, no key answers anything', () => {
    for (const command of ['approve', 'approve-always', 'approve-wider', 'deny', 'deny-with-note', 'expand-args'] as const) {
      for (const pending of [null, PAUSE]) {
        const state = input({ pending });
        expect(toolReducer(state, command)).toEqual({ actions: [], effects: [] });
      }
    }
  });
});

describe('pauses and the gate', () => {
  test('continue answers the pause and clears the first Ctrl+C', () => {
    const state = input({ pending: PAUSE }, { interrupted: true });
    expect(diff(state, pauseReducer(state, 'continue'))).toEqual({ changed: { interrupted: false }, effects: [{ kind: 'answer', payload: { action: 'continue' }, seq: 12 }] });
  });

  test('continue with the limit still spent says the run will pause again, then continues', () => {
    const state = input({ pending: BUDGET, exhausted: 'turns', limits: { ...INITIAL_STATE.limits, turns: 3 }, usage: { ...INITIAL_STATE.usage, turns: 3 } });
    expect(pauseReducer(state, 'continue').effects).toEqual([
      { kind: 'notice', ok: false, text: 'the turns budget is still spent, so the run pauses again: e raises it, or /budget turns +N' },
      { kind: 'answer', payload: { action: 'continue' }, seq: 12 },
    ]);
  });

  test.each([
    ['extend at a budget pause', { pending: BUDGET, exhausted: 'turns', limits: { ...INITIAL_STATE.limits, turns: 3 }, usage: { ...INITIAL_STATE.usage, turns: 3 } }, 'extend', {}, [{ kind: 'extend', dimension: 'turns', seq: 12 }]],
    [
      'extend at a budget pause whose limit was raised already: nothing is raised again',
      { pending: BUDGET, exhausted: 'turns', limits: { ...INITIAL_STATE.limits, turns: 13 }, usage: { ...INITIAL_STATE.usage, turns: 3 } },
      'extend',
      {},
      [{ kind: 'notice', ok: false, text: 'the turns limit is already above its use: c continues the run' }],
    ],
    ['extend at another pause', { pending: PAUSE }, 'extend', {}, [{ kind: 'notice', ok: false, text: 'e raises a spent budget; this pause is not a budget pause' }]],
    ['stop', { pending: PAUSE }, 'stop', {}, [{ kind: 'answer', payload: { action: 'stop' }, seq: 12 }]],
    ['redirect', { pending: PAUSE }, 'redirect', { input: 'bar', line: { text: '/goal redirect ', cursor: 15 } }, []],
  ] as const)('%s', (_, session, command, changed, effects) => {
    const state = input(session as Partial<SessionState>);
    expect(diff(state, pauseReducer(state, command))).toEqual({ changed, effects });
  });

  test('the gate: Enter confirms, q quits', () => {
    expect(gateReducer('confirm').effects).toEqual([{ kind: 'confirm' }]);
    expect(gateReducer('quit').effects).toEqual([{ kind: 'quit' }]);
  });
});

describe('global keys', () => {
  test.each([
    ['quit while live asks first', input(), 'quit', { overlay: 'quit' }, []],
    ['quit when the run is over leaves', input({ done: { reason: 'goal_met', summary: '' } }), 'quit', {}, [{ kind: 'quit' }]],
    ['quit in a replay leaves', input({}, {}, { replay: { index: 0, total: 4 } }), 'quit', {}, [{ kind: 'quit' }]],
    ['the first Ctrl+C asks for a pause', input(), 'interrupt', { interrupted: true }, [{ kind: 'request-pause' }]],
    ['the second Ctrl+C quits', input({}, { interrupted: true }), 'interrupt', {}, [{ kind: 'quit' }]],
    ['Ctrl+C with nothing live quits', input({ done: { reason: 'stopped', summary: '' } }), 'interrupt', {}, [{ kind: 'quit' }]],
    ['/ opens the bar', input(), 'open-command-bar', { input: 'bar', line: { text: '/', cursor: 1 } }, []],
    ['? opens help', input({}, { scroll: 3 }), 'help', { overlay: 'help', scroll: 0 }, []],
  ] as const)('%s', (_, state, command, changed, effects) => {
    expect(diff(state, globalReducer(state, command))).toEqual({ changed, effects });
  });

  test('replay keys move the cursor', () => {
    expect(['replay-back', 'replay-forward', 'replay-start', 'replay-end'].map((c) => replayReducer(c as 'replay-back').effects[0])).toEqual([
      { kind: 'replay-step', delta: -1 },
      { kind: 'replay-step', delta: 1 },
      { kind: 'replay-jump', to: 'start' },
      { kind: 'replay-jump', to: 'end' },
    ]);
  });
});

describe('dashboard', () => {
  test.each([
    ['↑ while following selects the one before the newest', {}, 'select-up', WIDE, { follow: false, selected: 2 }],
    ['↓ at the newest stays there', { follow: false, selected: 3 }, 'select-down', WIDE, {}],
    ['page up moves a page, not past the first', { follow: false, selected: 3 }, 'page-up', WIDE, { selected: 0 }],
    ['home selects the first event', {}, 'select-first', WIDE, { follow: false, selected: 0 }],
    ['end follows again', { follow: false, selected: 1 }, 'follow', WIDE, { follow: true, selected: null }],
    ['Enter while following opens the newest event', {}, 'open-event', WIDE, { overlay: 'event', opened: 3 }],
    ['Enter opens the selected event', { follow: false, selected: 1, scroll: 4 }, 'open-event', WIDE, { overlay: 'event', opened: 1, scroll: 0 }],
    ['f cycles the filter', { filter: 'activity' }, 'filter-next', WIDE, { filter: 'all' }],
    ['F cycles it back, wrapping', { filter: 'activity' }, 'filter-previous', WIDE, { filter: 'flow' }],
    ['Tab: the next panel', {}, 'next-pane', WIDE, { pane: 'goal' }],
    ['Shift+Tab wraps to the last panel', {}, 'previous-pane', WIDE, { pane: 'progress' }],
    ['Tab on a one-view body: the timeline gives way to the first panel', {}, 'next-pane', NARROW, { compactBody: 'checkpoint' }],
    ['Tab on a one-view body: after the last panel, the timeline', { compactBody: 'progress', pane: 'progress' }, 'next-pane', NARROW, { compactBody: 'timeline' }],
    ['[ with no checkpoints shows the checkpoint panel', { pane: 'goal' }, 'checkpoint-previous', WIDE, { pane: 'checkpoint' }],
  ] as const)('%s', (_, view, command, layout, changed) => {
    const state = input({}, view as Partial<ViewState>);
    // Leaving a panel takes away what the tool call panel said about its call.
    const effects = command.endsWith('-pane') ? [{ kind: 'clear-notice', about: 'tool-panel' }] : [];
    expect(diff(state, dashboardReducer(state, command, layout))).toEqual({ changed, effects });
  });

  test('Enter on an empty timeline opens nothing; x acknowledges every alert', () => {
    const empty = input({}, {}, { events: [], shown: 0 });
    expect(dashboardReducer(empty, 'open-event', WIDE).actions).toEqual([]);
    const alerted = input({ alerts: [{ seq: 1, kind: 'stagnation', message: 'x' }, { seq: 2, kind: 'repetition', message: 'y' }] as SessionState['alerts'] });
    expect(run(alerted, dashboardReducer(alerted, 'acknowledge-alert', WIDE)).view.acknowledged).toBe(2);
  });

  test('the timeline moves within the events shown through the filter', () => {
    const state = input({}, { filter: 'tools' });
    expect(dashboardReducer(state, 'select-up', WIDE).actions).toEqual([]); // the filter shows nothing
  });
});

describe('the tool call panel', () => {
  const call = (id: string) => ({ id, name: 'shell', args: { command: `echo ${id}` } });
  /** Calls t1..t4, whose tool.call events are 10, 20, 30, 40; the console holds the events from 20 on. */
  const tools = new Map(['t1', 't2', 't3', 't4'].map((id, i) => [id, { call: call(id), seq: (i + 1) * 10, decision: null, result: null, error: null }]));
  const held = [event(20, 'tool.call'), event(30, 'tool.call'), event(40, 'tool.call')].map((e, i) => ({ ...e, data: { call: call(`t${i + 2}`) } }) as LoopEvent);
  const calls = (view: Partial<ViewState> = {}) => input({ tools, toolOrder: ['t1', 't2', 't3', 't4'] }, { pane: 'tool', ...view }, { events: held, shown: held.length });

  test.each([
    ['[ on the live call shows the one before it', {}, 'tool-older', { toolCall: 2 }],
    ['[ again goes further back', { toolCall: 2 }, 'tool-older', { toolCall: 1 }],
    ['] goes forward', { toolCall: 1 }, 'tool-newer', { toolCall: 2 }],
    ['] onto the newest follows the live call again', { toolCall: 2 }, 'tool-newer', { toolCall: null }],
    ['] on the live call changes nothing', {}, 'tool-newer', {}],
    ['End: the live call, the timeline following', { toolCall: 1, follow: false, selected: 20 }, 'tool-live', { toolCall: null, follow: true, selected: null }],
    ['[ from the call selected in the timeline shows the one before it', { follow: false, selected: 30 }, 'tool-older', { toolCall: 1 }],
    ['] onto the newest while the timeline holds a selection stays on the newest', { follow: false, selected: 30 }, 'tool-newer', { toolCall: 3 }],
    ['Enter opens the tool.call event of the call shown', { toolCall: 1 }, 'tool-open', { overlay: 'event', opened: 20 }],
  ] as const)('%s', (_, view, command, changed) => {
    const state = calls(view as Partial<ViewState>);
    // Stepping takes away what the panel said about the call it showed ("call 1 is the first call").
    const effects = command === 'tool-open' ? [] : [{ kind: 'clear-notice', about: 'tool-panel' }];
    expect(diff(state, toolPanelReducer(state, command))).toEqual({ changed, effects });
  });

  test('[ at the first call stays there and says so; Enter on a call whose events were let go says so; no calls: nothing to show', () => {
    const first = calls({ toolCall: 0 });
    expect(diff(first, toolPanelReducer(first, 'tool-older'))).toEqual({ changed: {}, effects: [{ kind: 'notice', ok: true, info: true, text: 'call 1 is the first call of the run', about: 'tool-panel' }] });
    expect(diff(first, toolPanelReducer(first, 'tool-open'))).toEqual({
      changed: {},
      effects: [{ kind: 'notice', ok: false, text: "call 1's events were let go (10,000 are held); replay the run's log to open it", about: 'tool-panel' }],
    });
    const none = input({}, { pane: 'tool' });
    expect(toolPanelReducer(none, 'tool-older')).toEqual({ actions: [], effects: [{ kind: 'notice', ok: true, info: true, text: 'no tool call yet', while: 'no-tool-call' }] });
  });
});

describe('overlays', () => {
  test.each([
    ['Esc closes an event', { overlay: 'event', opened: 2, scroll: 3 }, 'close', { overlay: null, opened: null, scroll: 0 }, []],
    ['n stays', { overlay: 'quit' }, 'quit-no', { overlay: null }, []],
    ['y quits', { overlay: 'quit' }, 'quit-yes', { overlay: null }, [{ kind: 'quit' }]],
    ['↑ at the top stays', { overlay: 'help', scroll: 0 }, 'scroll-up', {}, []],
    ['↓ scrolls help one row', { overlay: 'help', scroll: 0 }, 'scroll-down', { scroll: 1 }, []],
    ['pgdn scrolls a page less one row', { overlay: 'help', scroll: 0 }, 'scroll-page-down', { scroll: 17 }, []],
    ['an event shorter than the body does not scroll', { overlay: 'event', opened: 1, scroll: 0 }, 'scroll-page-down', {}, []],
  ] as const)('%s', (_, view, command, changed, effects) => {
    const state = input({}, view as Partial<ViewState>);
    expect(diff(state, overlayReducer(state, command, WIDE))).toEqual({ changed, effects });
  });

  test('help scrolls no further than its last row', () => {
    let state = input({}, { overlay: 'help' });
    for (let i = 0; i < 500; i++) state = { ...state, ...run(state, overlayReducer(state, 'scroll-page-down', WIDE)).view };
    const last = state.scroll;
    expect(run(state, overlayReducer(state, 'scroll-down', WIDE)).view.scroll).toBe(last);
    expect(run(state, overlayReducer(state, 'scroll-up', WIDE)).view.scroll).toBe(last - 1);
  });
});

describe('command bar', () => {
  const bar = (text: string, view: Partial<ViewState> = {}, session: Partial<SessionState> = {}) => input(session, { input: 'bar', line: lineOf(text), ...view });

  test.each([
    ['pasted into the open bar', (text: string) => run(bar('/goal redirect '), barReducer(bar('/goal redirect '), { command: null, text })), '/goal redirect '.length],
    ['pasted with the bar closed', (text: string) => run(input(), pasteReducer(input(), text)), 1],
    ['pasted into the deny note', (text: string) => run(input({ pending: TOOL }, { input: 'note', line: lineOf('') }), noteReducer(input({ pending: TOOL }, { input: 'note', line: lineOf('') }), { command: null, text })), 0],
  ] as const)('a paste longer than a line holds (%s): the line keeps its most, and a notice says how much was left out', (_, paste, before) => {
    // Two-cluster characters (a letter and its accent; a flag) are counted as one each.
    for (const unit of ['x', 'e\u0301', '\u{1F1EF}\u{1F1F5}']) {
      const out = paste(unit.repeat(MAX_LINE_CHARS + 500));
      expect(out.view.line.text).toBe(out.view.line.text.slice(0, before) + unit.repeat(MAX_LINE_CHARS - before));
      expect(out.view.line.cursor).toBe(MAX_LINE_CHARS);
      expect(out.effects).toContainEqual({ kind: 'notice', ok: false, text: `a line holds at most 10,000 characters: the last ${(500 + before).toLocaleString('en-US')} typed or pasted were left out`, about: 'command-line' });
    }
    // Within the limit: all of it, and no notice.
    const fits = paste('y'.repeat(100));
    expect(fits.view.line.text.endsWith('y'.repeat(100))).toBe(true);
    expect(fits.effects.filter((e) => e.kind === 'notice')).toEqual([]);
  });

  test('an empty line closes the bar', () => {
    const state = bar('  ');
    expect(diff(state, submitLine(state, '  ')).changed).toMatchObject({ input: null, line: { text: '', cursor: 0 } });
  });

  test('a line that is not a command keeps the bar open with the parser message, and is remembered', () => {
    const state = bar('/budget turns 5');
    const out = run(state, submitLine(state, '/budget turns 5'));
    expect(out.view).toMatchObject({ input: 'bar', line: { text: '/budget turns 5' }, busy: false, history: { entries: ['/budget turns 5'] } });
    // The message is about the line: it goes when the line does.
    expect(out.effects).toEqual([{ kind: 'notice', ok: false, text: 'usage: /budget <turns|tool_calls|wall_clock|tokens|cost> +N (wall_clock takes a duration: +10m, +1h30m)', about: 'command-line' }]);
  });

  test('/help opens help and closes the bar without running anything', () => {
    const out = run(bar('/help'), submitLine(bar('/help'), '/help'));
    expect(out.view).toMatchObject({ input: null, overlay: 'help', scroll: 0 });
    // Nothing runs; a warning about an earlier line goes with the bar.
    expect(out.effects).toEqual([{ kind: 'clear-notice', about: 'command-line' }]);
  });

  test('a command runs once: the bar is busy, and Enter while busy does nothing', () => {
    const out = run(bar('/budget cost +$2'), submitLine(bar('/budget cost +$2'), '/budget cost +$2'));
    expect(out.view.busy).toBe(true);
    expect(out.effects).toEqual([{ kind: 'clear-notice', about: 'command-line' }, { kind: 'operator', command: { kind: 'extend-budget', dimension: 'cost_usd', by: 2 } }]);
    const busy = bar('/budget cost +$2', { busy: true });
    expect(submitLine(busy, '/budget cost +$2')).toEqual({ actions: [], effects: [] });
  });

  const command = (line: string): OperatorCommand => {
    const parsed = parseOperatorCommand(line);
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.command;
  };

  test.each([
    ['/stop answers a waiting pause with stop', '/stop', PAUSE, true, [{ kind: 'answer', payload: { action: 'stop', note: 'the operator stopped the run from the command bar' }, seq: 12 }]],
    ['/stop leaves a waiting tool call to the operator', '/stop', TOOL, true, []],
    ['/stop --abort denies a waiting tool call', '/stop --abort', TOOL, true, [{ kind: 'answer', payload: { decision: 'deny', note: 'the operator aborted the run (/stop --abort)' }, seq: 8 }]],
    ['a refused /stop answers nothing', '/stop', PAUSE, false, []],
    ['a goal revision answers nothing', '/goal modify x', PAUSE, true, []],
  ] as const)('%s', (_, line, pending, ok, answers) => {
    const state = bar(line, { busy: true }, { pending });
    const out = run(state, commandDone(state, command(line), { ok, message: 'm' }));
    // The answer to a /stop that waits for a safe point is true while the run goes on.
    const waits = ok && line === '/stop';
    // A failure keeps the line in the bar, and is about it.
    expect(out.effects).toEqual([waits ? { kind: 'notice', ok, text: 'm', while: 'running' } : { kind: 'notice', ok, text: 'm', ...(ok ? {} : { about: 'command-line' }) }, ...answers]);
    expect(out.view).toMatchObject(ok ? { busy: false, input: null, line: { text: '' } } : { busy: false, input: 'bar', line: { text: line } });
  });

  test.each([
    ['Tab completes the only candidate', '/goal st', [], 'complete', '', '/goal status', []],
    ['Tab extends to the common prefix and lists', '/goal a', [], 'complete', '', '/goal add-c', ['/goal add-constraint ', '/goal add-criterion ']],
    ['typing narrows the open list', '/goal add-c', ['/goal add-constraint ', '/goal add-criterion '], null, 'o', '/goal add-co', ['/goal add-constraint ']],
    ['typing with the list closed opens nothing', '/go', [], null, 'a', '/goa', []],
    ['Backspace edits', '/goal', [], 'delete-back', '', '/goa', []],
  ] as const)('%s', (_, text, completions, cmd, typed, line, list) => {
    const state = bar(text, { completions });
    const out = run(state, barReducer(state, { command: cmd, text: typed }));
    expect(out.view.line.text).toBe(line);
    expect(out.view.completions).toEqual(list);
    expect(out.view.input).toBe('bar');
  });

  // A replay or a followed session answers only commands that change nothing: Tab offers only those.
  test.each([
    ['a replay', { replay: { index: 0, total: 4 } }],
    ['a followed session', { following: true }],
  ] as const)('in %s Tab completes and lists only the read-only commands', (_, more) => {
    const tab = (text: string, completions: string[] = []) => {
      const state = { ...bar(text, { completions }), ...more } as KeyInput;
      return run(state, barReducer(state, { command: 'complete', text: '' })).view;
    };
    expect(tab('/')).toMatchObject({ line: { text: '/' }, completions: ['/goal status', '/help'] });
    expect(tab('/g').line.text).toBe('/goal status');
    expect(tab('/st')).toMatchObject({ line: { text: '/st' }, completions: [] });
    expect(tab('/bu')).toMatchObject({ line: { text: '/bu' }, completions: [] });
    const typed = { ...bar('/', { completions: ['/goal status', '/help'] }), ...more } as KeyInput;
    expect(run(typed, barReducer(typed, { command: null, text: 'g' })).view.completions).toEqual(['/goal status']);
  });

  test('Home goes to just after the leading /, a second Home to the very start: typed text lands in the command', () => {
    const home = (state: ReturnType<typeof bar>) => run(state, barReducer(state, { command: 'cursor-home', text: '' })).view;
    const first = home(bar('/goal status'));
    expect(first.line.cursor).toBe(1);
    const typed = run(bar('/goal status'), barReducer({ ...bar('/goal status'), line: first.line }, { command: null, text: 'x' })).view;
    expect(typed.line.text).toBe('/xgoal status');
    expect(home({ ...bar('/goal status'), line: first.line }).line.cursor).toBe(0);
    expect(home(bar('goal status')).line.cursor).toBe(0);
  });

  test('Esc with the list closed closes the bar', () => {
    expect(run(bar('/goal'), barReducer(bar('/goal'), { command: 'cancel', text: '' })).view).toMatchObject({ input: null, line: { text: '' } });
  });

  test('Esc with the list open closes the bar and the list at once', () => {
    const state = bar('/goal a', { completions: ['/goal add-constraint '] });
    expect(run(state, barReducer(state, { command: 'cancel', text: '' })).view).toMatchObject({ input: null, line: { text: '' }, completions: [] });
  });
});

describe('deny note', () => {
  const note = (text: string, pending: PendingYield | null = TOOL) => input({ pending }, { input: 'note', line: lineOf(text) });

  test.each([
    ['Enter denies with the note', '  not now ', TOOL, [{ kind: 'answer', payload: { decision: 'deny', note: 'not now' }, seq: 8 }]],
    ['Enter with no note denies plainly', '   ', TOOL, [{ kind: 'answer', payload: { decision: 'deny' }, seq: 8 }]],
    ['Enter after the call went answers nothing', 'late', null, []],
  ] as const)('%s', (_, text, pending, effects) => {
    const state = note(text, pending);
    const out = run(state, noteReducer(state, { command: 'submit', text: '' }));
    expect(out).toEqual({ view: { ...viewOf(state), input: null, line: { text: '', cursor: 0 } }, effects });
  });

  test('Esc goes back to the prompt without answering; typing edits', () => {
    expect(run(note('x'), noteReducer(note('x'), { command: 'cancel', text: '' }))).toMatchObject({ view: { input: null }, effects: [] });
    expect(run(note('x'), noteReducer(note('x'), { command: null, text: 'y' })).view.line).toEqual({ text: 'xy', cursor: 2 });
  });
});

describe('a new prompt', () => {
  test('folds the argument lines and closes a note typed for the old one; otherwise the view is kept', () => {
    const changed = (view: Partial<ViewState>) => {
      const store = createConsoleStore();
      store.setState(view);
      const before = store.getState();
      before.promptChanged();
      return { view: viewOf(store.getState()), kept: store.getState() === before };
    };
    expect(changed({ overlay: 'args', input: 'note', line: lineOf('x') }).view).toMatchObject({ overlay: null, input: null, line: { text: '' } });
    expect(changed({ input: 'bar', line: lineOf('/goal') })).toMatchObject({ view: { input: 'bar', line: { text: '/goal' } }, kept: true });
    expect(changed({}).kept).toBe(true);
  });
});
