// The operator command grammar: every line the command bar accepts, parsed once into a
// typed command, and every malformed line refused with the message the operator sees.
import { describe, expect, test } from 'vitest';
import { BAR_COMMANDS } from '../../src/ui/commands.js';
import { OPERATOR_COMMAND_SYNTAX, parseOperatorCommand, performOperatorCommand, type OperatorTarget } from '../../src/engine/operator-command.js';

const USAGE = 'usage: /budget <turns|tool_calls|wall_clock|tokens|cost> +N (wall_clock takes a duration: +10m, +1h30m)';

describe('parseOperatorCommand', () => {
  test.each([
    ['/goal status', { kind: 'goal-status' }],
    ['  /goal status  ', { kind: 'goal-status' }],
    ['/goal add-constraint keep the API', { kind: 'revise-goal', directive: 'add-constraint', text: 'keep the API' }],
    ['/goal redirect add-constraint x', { kind: 'revise-goal', directive: 'redirect', text: 'add-constraint x' }],
    ['/goal modify new aim', { kind: 'revise-goal', directive: 'modify', text: 'new aim' }],
    ['/goal add-criterion tests pass', { kind: 'revise-goal', directive: 'add-criterion', text: 'tests pass' }],
    ['/budget turns +5', { kind: 'extend-budget', dimension: 'turns', by: 5 }],
    ['/budget tool_calls +2', { kind: 'extend-budget', dimension: 'tool_calls', by: 2 }],
    ['/budget wall_clock +10m', { kind: 'extend-budget', dimension: 'wall_clock_seconds', by: 600 }],
    ['/budget wall_clock_seconds +90s', { kind: 'extend-budget', dimension: 'wall_clock_seconds', by: 90 }],
    ['/budget wall_clock +1h2m3s', { kind: 'extend-budget', dimension: 'wall_clock_seconds', by: 3723 }],
    ['/budget cost +0.0015', { kind: 'extend-budget', dimension: 'cost_usd', by: 0.0015 }],
    ['/budget cost +1000000', { kind: 'extend-budget', dimension: 'cost_usd', by: 1_000_000 }],
    ['/budget wall_clock +8760h', { kind: 'extend-budget', dimension: 'wall_clock_seconds', by: 8760 * 3600 }],
    ['/budget wall_clock +1h30m', { kind: 'extend-budget', dimension: 'wall_clock_seconds', by: 5400 }],
    ['/budget tokens +1000', { kind: 'extend-budget', dimension: 'tokens', by: 1000 }],
    ['/budget cost +$0.5', { kind: 'extend-budget', dimension: 'cost_usd', by: 0.5 }],
    ['/budget cost +.5', { kind: 'extend-budget', dimension: 'cost_usd', by: 0.5 }],
    ['/budget cost +$.25', { kind: 'extend-budget', dimension: 'cost_usd', by: 0.25 }],
    ['/budget cost_usd +2', { kind: 'extend-budget', dimension: 'cost_usd', by: 2 }],
    ['/stop', { kind: 'stop', abort: false }],
    ['/stop --abort', { kind: 'stop', abort: true }],
    ['/stop   --abort', { kind: 'stop', abort: true }],
    ['/help', { kind: 'help' }],
    // The slash left out (Ctrl+U clears it with the rest): the command still runs.
    ['goal status', { kind: 'goal-status' }],
    ['budget turns +5', { kind: 'extend-budget', dimension: 'turns', by: 5 }],
    ['stop --abort', { kind: 'stop', abort: true }],
  ])('%j', (line, command) => {
    expect(parseOperatorCommand(line)).toEqual({ ok: true, command });
  });

  test.each([
    ['', 'unknown command "(empty)"; try /goal status, /goal add-constraint <text>, /goal redirect <text>, /budget <dimension> +N, /stop, /stop --abort'],
    ['/frobnicate x', 'unknown command "/frobnicate"; try /goal status, /goal add-constraint <text>, /goal redirect <text>, /budget <dimension> +N, /stop, /stop --abort'],
    ['/goals status', 'unknown command "/goals"; try /goal status, /goal add-constraint <text>, /goal redirect <text>, /budget <dimension> +N, /stop, /stop --abort'],
    ['/goal', '/goal needs a subcommand: status, add-constraint, redirect, modify, add-criterion'],
    ['/goal add-constraint', '/goal add-constraint needs text, e.g. /goal add-constraint keep the public API'],
    // Text drawn as nothing (a zero-width space, joiners, a Hangul filler) is no text.
    ['/goal redirect \u200b', '/goal redirect needs text (only invisible characters were typed), e.g. /goal redirect keep the public API'],
    ['/goal add-constraint \u200d\u2060 \u3164', '/goal add-constraint needs text (only invisible characters were typed), e.g. /goal add-constraint keep the public API'],
    ['/goal redirect \u034f\ufe0f', '/goal redirect needs text (only invisible characters were typed), e.g. /goal redirect keep the public API'],
    ['/goal add-criterion \ufe0f --check true', 'a criterion needs text before its check, found "\ufe0f --check true"'],
    ['/goal redirect \u200b --criterion tests pass', '/goal redirect needs the new objective before --criterion'],
    ['/goal add-criterion \u200b --check npm test', 'a criterion needs text before its check, found "\u200b --check npm test"'],
    ['/goal add-criterion tests pass --check \u200b', '--check needs a command, e.g. --check npm test (criterion "tests pass")'],
    ['/goal status now', '/goal status takes no text'],
    ['/budget', USAGE],
    ['/budget turns 5', USAGE],
    ['/budget turns +', USAGE],
    ['/budget turns +5 more', USAGE],
    ['/budget toString +1', 'unknown budget dimension "toString"; valid: turns, tool_calls, wall_clock, tokens, cost'],
    ['/budget __proto__ +1', 'unknown budget dimension "__proto__"; valid: turns, tool_calls, wall_clock, tokens, cost'],
    ['/budget turns +10m', 'the turns increment must be a positive whole number, found "10m"'],
    ['/budget turns +1.5', 'the turns increment must be a positive whole number, found "1.5"'],
    ['/budget turns +0', 'the turns increment must be a positive whole number, found "0"'],
    ['/budget tokens +1e3', 'the tokens increment must be a positive whole number, found "1e3"'],
    // Past the largest whole number loop.yaml takes: no limit, however it is written.
    ['/budget turns +999999999999999999999', 'the turns limit can be at most 9007199254740991 (the largest whole number loop.yaml takes for budget.max_iterations); an increment of more cannot be added'],
    ['/budget tool_calls +9007199254740992', 'the tool_calls limit can be at most 9007199254740991 (the largest whole number loop.yaml takes for budget.max_tool_calls); an increment of more cannot be added'],
    ['/budget cost +-1', 'the cost increment must be a positive number of USD such as 0.5, found "-1"'],
    ['/budget cost +.', 'the cost increment must be a positive number of USD such as 0.5, found "."'],
    ['/budget cost +.5.5', 'the cost increment must be a positive number of USD such as 0.5, found ".5.5"'],
    ['/budget turns +.5', 'the turns increment must be a positive whole number, found ".5"'],
    ['/budget cost +Infinity', 'the cost increment must be a positive number of USD such as 0.5, found "Infinity"'],
    ['/budget cost +99999999999999999999999', 'the cost limit can be at most $1000000.00 (the largest amount loop.yaml takes for budget.max_cost_usd); an increment of more cannot be added'],
    ['/budget cost +1000000.01', 'the cost limit can be at most $1000000.00 (the largest amount loop.yaml takes for budget.max_cost_usd); an increment of more cannot be added'],
    ['/budget wall_clock +soon', 'the wall_clock increment must be a duration such as 90s, 10m or 1h30m, found "soon"'],
    ['/budget wall_clock +0m', 'the wall_clock increment must be a duration such as 90s, 10m or 1h30m, found "0m"'],
    ['/budget wall_clock +0.5m', 'the wall_clock increment must be a duration such as 90s, 10m or 1h30m, found "0.5m"'],
    ['/budget wall_clock +90', 'the wall_clock increment must be a duration such as 90s, 10m or 1h30m, found "90" (a bare number has no unit: write +90s)'],
    ['/budget wall_clock +1.5', 'the wall_clock increment must be a duration such as 90s, 10m or 1h30m, found "1.5" (a bare number has no unit)'],
    ['/budget wall_clock +8761h', 'the wall_clock limit can be at most 8760h (365 days, the longest duration loop.yaml takes for budget.max_wall_clock); an increment of more cannot be added'],
    ['/budget wall_clock +99999999999999999999h', 'the wall_clock limit can be at most 8760h (365 days, the longest duration loop.yaml takes for budget.max_wall_clock); an increment of more cannot be added'],
    ['/budget wall_clock +9007199254740991s', 'the wall_clock limit can be at most 8760h (365 days, the longest duration loop.yaml takes for budget.max_wall_clock); an increment of more cannot be added'],
    ['/stop now', 'usage: /stop (stop at the next safe point) or /stop --abort (kill tools, stash the workspace, write a failure report)'],
    ['/stop --abort now', 'usage: /stop (stop at the next safe point) or /stop --abort (kill tools, stash the workspace, write a failure report)'],
    ['goals status', 'unknown command "goals"; try /goal status, /goal add-constraint <text>, /goal redirect <text>, /budget <dimension> +N, /stop, /stop --abort'],
    ['goal', '/goal needs a subcommand: status, add-constraint, redirect, modify, add-criterion'],
    ['/help me', 'unknown command "/help"; try /goal status, /goal add-constraint <text>, /goal redirect <text>, /budget <dimension> +N, /stop, /stop --abort'],
  ])('%j is refused', (line, message) => {
    expect(parseOperatorCommand(line)).toEqual({ ok: false, message });
  });

  test('every line the command bar completes to parses, once its argument is filled in', () => {
    expect(BAR_COMMANDS).toBe(OPERATOR_COMMAND_SYNTAX);
    for (const { text } of OPERATOR_COMMAND_SYNTAX) {
      const line = text.endsWith('+') ? `${text}${text.includes('wall_clock') ? '1m' : '1'}` : text.endsWith(' ') ? `${text}x` : text;
      expect(parseOperatorCommand(line), line).toMatchObject({ ok: true });
    }
  });
});

describe('performOperatorCommand', () => {
  test('each command reaches its typed method with typed arguments', async () => {
    const calls: unknown[][] = [];
    const target: OperatorTarget = {
      goalStatus: () => (calls.push(['goalStatus']), { ok: true, message: 'status' }),
      reviseGoal: async (directive, text) => (calls.push(['reviseGoal', directive, text]), { ok: true, message: 'revised' }),
      extendBudget: (dimension, by) => (calls.push(['extendBudget', dimension, by]), { ok: true, message: 'raised' }),
      stop: (options) => (calls.push(['stop', options]), { ok: true, message: 'stopping' }),
    };
    for (const line of ['/goal status', '/goal redirect x y', '/budget cost +$0.25', '/stop', '/stop --abort']) {
      const parsed = parseOperatorCommand(line);
      if (!parsed.ok) throw new Error(parsed.message);
      await performOperatorCommand(target, parsed.command);
    }
    expect(calls).toEqual([['goalStatus'], ['reviseGoal', 'redirect', 'x y'], ['extendBudget', 'cost_usd', 0.25], ['stop', { abort: false }], ['stop', { abort: true }]]);
  });
});
