/**
 * Numbers past what a field takes: every error names the bound, and "found" quotes the
 * number as the file writes it (the YAML node's source), not the value it was read as
 * (`1e400` is read as infinity, `99999999999999999999` as 1e20, `9007199254740993` as
 * 9007199254740992).
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/engine/policy.js';
import { BASE, policyErrors } from '../support/loop-yaml-base.js';

const messages = policyErrors;

const COUNT = 'expected at most 9007199254740991 (the largest whole number; write unlimited to lift the limit)';
const MAX_NUMBER = '1.7976931348623157e+308';

describe('a number past its bound: the bound, and the number as written', () => {
  it.each([
    ['a count limit of 20 digits', 'budget:\n  max_iterations: 99999999999999999999\n', `loop.yaml:11:19: budget.max_iterations: ${COUNT}, found 99999999999999999999`],
    ['a count limit read as infinity', 'budget:\n  max_tool_calls: 1e400\n', `loop.yaml:11:19: budget.max_tool_calls: ${COUNT}, found 1e400`],
    ['a count limit one past the largest whole number (read as one less)', 'budget:\n  max_tokens: 9007199254740993\n', `loop.yaml:11:15: budget.max_tokens: ${COUNT}, found 9007199254740993`],
    ['a count limit written .inf', 'budget:\n  max_tokens: .inf\n', `loop.yaml:11:15: budget.max_tokens: ${COUNT}, found .inf`],
    ['a cost limit read as infinity', 'budget:\n  max_cost_usd: 1e400\n', 'loop.yaml:11:17: budget.max_cost_usd: expected at most 1000000 (USD; write unlimited to lift the limit), found 1e400'],
    ['a cost limit of 23 digits', 'budget:\n  max_cost_usd: 99999999999999999999999\n', 'loop.yaml:11:17: budget.max_cost_usd: expected at most 1000000 (USD; write unlimited to lift the limit), found 99999999999999999999999'],
    ['a count increment', 'budget:\n  increments: { turns: 1e30 }\n', 'loop.yaml:11:24: budget.increments.turns: expected at most 9007199254740991 (the largest whole number), found 1e30'],
    ['a cost increment read as infinity', 'budget:\n  increments: { cost_usd: 1e999 }\n', 'loop.yaml:11:27: budget.increments.cost_usd: expected at most 1000000 (USD), found 1e999'],
    ['a positive integer', 'checkpoint:\n  every_iterations: 18446744073709551616\n', 'loop.yaml:11:21: checkpoint.every_iterations: expected an integer from 1 to 9007199254740991, found 18446744073709551616'],
    ['an integer >= 2', 'repetition:\n  window: 1e20\n', 'loop.yaml:11:11: repetition.window: expected an integer from 2 to 9007199254740991, found 1e20'],
    ['an integer >= 0 read as infinity', 'patterns:\n  plan_and_execute: { max_replans: 1e400 }\n', 'loop.yaml:11:36: patterns.plan_and_execute.max_replans: expected an integer from 0 to 9007199254740991, found 1e400'],
    ['a size with a bound of its own, past every integer: one error, its bound', 'tools:\n  output_limit_bytes: 1e20\n', 'loop.yaml:11:23: tools.output_limit_bytes: expected at most 16777216 bytes (16 MiB: output is kept in memory), found 1e20'],
    ['a size read as infinity', 'tools:\n  output_limit_bytes: 1e400\n', 'loop.yaml:11:23: tools.output_limit_bytes: expected an integer from 1 to 16777216, found 1e400'],
    ['an exit code past every integer: one error, its bound', 'goal:\n  objective: x\n  success_criteria:\n    - { text: t, check: { command: "true", expect_exit: 99999999999999999999 } }\n', "loop.yaml:4:57: goal.success_criteria[0].check.expect_exit: expected an exit code from 0 to 125 (126 and 127 are the shell's own: the command could not run), found 99999999999999999999"],
    ['a fraction read as infinity', 'budget:\n  warn_fraction: 1e400\n', 'loop.yaml:11:18: budget.warn_fraction: expected a number > 0 and <= 1, found 1e400'],
    ['a price read as infinity', 'pricing:\n  input_per_million_usd: 1e400\n', `loop.yaml:11:26: pricing.input_per_million_usd: expected a number from 0 to ${MAX_NUMBER}, found 1e400`],
    ['a target read as infinity', 'goal:\n  objective: x\n  success_criteria:\n    - { text: t, check: { signal: observed.t.failing, target: 1e400 } }\nobserve:\n  - { name: t, command: "true", parser: tap }\n', `loop.yaml:4:63: goal.success_criteria[0].check.target: expected a number from -${MAX_NUMBER} to ${MAX_NUMBER}, found 1e400`],
    ['a bare number of seconds past the longest timer', 'tools:\n  shell_timeout: 1e20\n', 'loop.yaml:11:18: tools.shell_timeout: expected a duration of at most 576h (24 days, the longest timer loopdeck can keep), found 1e20 (a bare number has no unit)'],
  ])('%s', (_kind, block, message) => {
    const source = block.startsWith('goal:') ? `${block}${BASE.replace('goal:\n  objective: fix it\n', '')}` : `${BASE}${block}`;
    expect(messages(source)).toEqual([message]);
  });

  it('a number below its bound says the number as written too', () => {
    expect(messages(`${BASE}budget:\n  max_tool_calls: -1e400\n`)).toEqual(['loop.yaml:11:19: budget.max_tool_calls: expected a positive integer or "unlimited", found -1e400']);
    expect(messages(`${BASE}budget:\n  max_iterations: 0x0\n`)).toEqual([
      'loop.yaml:11:19: budget.max_iterations: expected a positive integer or "unlimited", found 0x0 (0 would not mean unlimited: write unlimited to remove the limit)',
    ]);
  });

  it('the largest whole number itself is a limit, and an increment', () => {
    const policy = parsePolicy(`${BASE}budget:\n  max_iterations: 9007199254740991\n  increments: { tokens: 9007199254740991 }\n`, 'loop.yaml');
    expect(policy.budget.limits.turns).toBe(Number.MAX_SAFE_INTEGER);
    expect(policy.budget.increments.tokens).toBe(Number.MAX_SAFE_INTEGER);
  });
});
