/**
 * A loop.yaml fragment (as an object) whose observer measures the same counts at every
 * checkpoint: 1 failing test, 0 passing. A run with it makes no observed progress, so its
 * checkpoints count towards STAGNATION_DETECTED (a run that measures nothing has UNKNOWN
 * checkpoints instead, which never do).
 */
export const FLAT_OBSERVER = {
  observe: [{ name: 'tests', command: "printf 'not ok 1 - stuck\\nok 2 - fine\\n# pass 1\\n# fail 1\\n'", parser: 'tap' }],
  progress: { observed: [{ signal: 'observed.tests.failing', direction: 'decrease' }] },
};
