/**
 * Merge keys (`<<: *base`, YAML 1.1) in loop.yaml: YAML 1.2 has none and loopdeck does not
 * support them. Each is an error at the key that says so and what works instead: the keys
 * written out, or the alias alone when nothing is added or changed.
 */
import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/engine/policy.js';
import { BASE, policyErrors } from '../support/loop-yaml-base.js';

const messages = policyErrors;

const MERGE = 'expected plain keys, found a merge key (<<), which loopdeck does not support (YAML 1.2 has no merge keys): write the keys out';

describe('merge keys', () => {
  it('one alias merged into a flow mapping: the error names the alias alone as what works, not only an unknown key', () => {
    expect(messages(`${BASE}x-b: &b { max_iterations: 5 }\nbudget: {<<: *b, max_tool_calls: 3}\n`)).toEqual([
      `loop.yaml:11:10: budget.<<: ${MERGE}, or use the alias alone (budget: *b) when no key is added or changed`,
    ]);
  });

  it('in a block mapping, and a list of aliases merged (no alias alone can stand for them)', () => {
    expect(messages(`${BASE}x-b: &b { max_iterations: 5 }\nx-c: &c { max_tool_calls: 5 }\nbudget:\n  <<: [*b, *c]\n  max_tokens: 100\n`)).toEqual([`loop.yaml:13:3: budget.<<: ${MERGE}`]);
  });

  it('in a list item: the alias alone is the item', () => {
    const source = BASE.replace('verify:\n  - command: node --test\n', 'x-v: &v { command: node --test }\nverify:\n  - <<: *v\n    timeout: 1m\n');
    expect(messages(source)).toEqual([
      `loop.yaml:10:5: verify[0].<<: ${MERGE}, or use the alias alone (- *v) when no key is added or changed`,
      'loop.yaml:10:5: verify[0].command: expected a string, found nothing (this key is required)',
    ]);
  });

  it('inside an extension value too: the mapping an alias of it brings would hold a key "<<"', () => {
    expect(messages(`${BASE}x-b: &b { max_iterations: 5 }\nx-c: &c { <<: *b, max_tool_calls: 3 }\nbudget: *c\n`)).toEqual([
      `loop.yaml:11:11: x-c.<<: ${MERGE}, or use the alias alone (x-c: *b) when no key is added or changed`,
    ]);
  });

  it('what the errors suggest works: the alias alone, or the keys written out', () => {
    expect(parsePolicy(`${BASE}x-b: &b { max_iterations: 5 }\nbudget: *b\n`, 'loop.yaml').budget.limits.turns).toBe(5);
    expect(parsePolicy(`${BASE}budget: { max_iterations: 5, max_tool_calls: 3 }\n`, 'loop.yaml').budget.limits).toMatchObject({ turns: 5, tool_calls: 3 });
  });

  it('a quoted "<<" is a key of that name, never a merge key: unknown, as any other', () => {
    expect(messages(`${BASE}x-b: &b { max_iterations: 5 }\nbudget: {"<<": *b}\n`)).toEqual(['loop.yaml:11:10: budget.<<: unknown key "<<"; expected one of: max_iterations, max_tool_calls, max_wall_clock, max_tokens, max_cost_usd, warn_fraction, on_exhausted, increments']);
  });
});
