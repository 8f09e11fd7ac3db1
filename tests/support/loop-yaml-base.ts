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
