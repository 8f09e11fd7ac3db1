import { expect } from 'vitest';
import { ConfigErrors } from '../../src/engine/errors.js';
import { parsePolicy } from '../../src/engine/policy.js';

/**
 * The smallest valid loop.yaml, nine lines (a scripted agent `s.yaml`, workspace `ws`, one
 * verify command): a case appends its block, which then starts at line 10.
 */
export const BASE = `goal:
  objective: fix it
agent:
  kind: scripted
  script: s.yaml
workspace:
  path: ws
verify:
  - command: node --test
`;

/** The messages of the ConfigErrors that parsing `source` as `file` throws (fails the test when it parses). */
export function policyErrors(source: string, file = 'loop.yaml'): string[] {
  try {
    parsePolicy(source, file);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigErrors);
    return (error as ConfigErrors).errors.map((e) => e.message);
  }
  throw new Error('expected parsePolicy to throw ConfigErrors');
}
