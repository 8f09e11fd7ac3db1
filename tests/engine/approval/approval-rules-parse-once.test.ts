import { describe, expect, it, vi } from 'vitest';
import type { ToolCall } from '../../../src/engine/types.js';

/** Every shell text the rule set hands to the parser, in order (the parser itself is real). */
const parsedTexts = vi.hoisted(() => [] as string[]);

vi.mock('../../../src/engine/approval/shell-syntax.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/engine/approval/shell-syntax.js')>();
  return {
    ...real,
    parseShell: (text: string) => {
      parsedTexts.push(text);
      return real.parseShell(text);
    },
  };
});

const { ApprovalRuleSet } = await import('../../../src/engine/approval/approval-rules.js');

const shell = (command: string, id = 't1'): ToolCall => ({ id, name: 'shell', args: { command } });

/** The texts parsed while `work` runs. */
function parsedDuring(work: () => void): string[] {
  parsedTexts.length = 0;
  work();
  return [...parsedTexts];
}

describe('ApprovalRuleSet: rules are parsed once, when the set is built', () => {
  const many = Array.from({ length: 300 }, (_, i) => `shell: tool${i} sub${i} --flag 'quoted word'`);

  it('building the set parses each rule; deciding a call parses only the call, however many rules there are', () => {
    const built = parsedDuring(() => new ApprovalRuleSet({ default: 'ask', allow: [...many, 'shell: git status'], deny: [...many, 'shell: rm'] }));
    expect(built.length).toBeGreaterThanOrEqual(602);

    const one = new ApprovalRuleSet({ default: 'ask', allow: ['shell: git status'], deny: ['shell: rm'] });
    const big = new ApprovalRuleSet({ default: 'ask', allow: [...many, 'shell: git status'], deny: [...many, 'shell: rm'] });
    for (const command of ['git status --short f1', 'rm -rf build', "tool7 sub7 --flag 'quoted word'", 'make && ls']) {
      const withOne = parsedDuring(() => one.decide(shell(command), ['shell-exact: make test']));
      const withBig = parsedDuring(() => big.decide(shell(command), ['shell-exact: make test']));
      expect(withBig, command).toEqual(withOne);
      expect(withBig.some((text) => text.includes('tool1 sub1')), command).toBe(false);
    }
    expect(big.decide(shell('git status -s'), [])).toEqual({ decision: 'allow', rule: 'shell: git status', reason: 'allow rule "shell: git status"' });
  });

  it('a rule granted during the run is parsed the first time it is seen, not on each call', () => {
    const set = new ApprovalRuleSet({ default: 'ask', allow: [], deny: [] });
    const grant = 'shell-read-only: git log';
    const first = parsedDuring(() => expect(set.decide(shell('git log --oneline'), [grant]).decision).toBe('allow'));
    expect(first.filter((text) => text.trim() === 'git log').length).toBeGreaterThan(0);
    const again = parsedDuring(() => expect(set.decide(shell('git log --oneline', 't2'), [grant]).decision).toBe('allow'));
    expect(again).toEqual(['git log --oneline']);
  });
});
