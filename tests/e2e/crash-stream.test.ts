// SIGKILL of a real run while a model stream is in flight (docs/design.md, "Resume
// points"): the built CLI drives a `kind: openai` agent against a loopback server that
// streams each reply slowly, is killed once the server has sent part of a reply, and is
// resumed to the end. The turn whose stream was cut is asked again (it never completed);
// no completed turn is asked again (the server counts requests per turn); no tool call
// ran twice; the end equals the uncrashed run's; no process of the run is left. A sample;
// `npm run crash-sweep` cuts every turn at several points of its stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeServer, listenOnLoopback } from '../support/loopback.js';
// @ts-expect-error: a plain ES module shared with scripts/crash-sweep.mjs
import { crashDuringStream, modelServer, uncrashedStreamRun } from '../../scripts/crash-stream.mjs';

type Model = { server: import('node:http').Server; state: { requests: Array<{ turn: number }> }; baseUrl: string };
type Result = { cut: string; violations: string[] };

let model: Model;
let uncrashed: { reason: string; turns: number[] };

beforeAll(async () => {
  const { server, state } = modelServer();
  model = { server, state, baseUrl: await listenOnLoopback(server) };
  uncrashed = await uncrashedStreamRun(model);
}, 60_000);

afterAll(async () => {
  if (model) await closeServer(model.server);
});

describe('SIGKILL during a model stream, then resume', () => {
  it('the uncrashed run meets the goal, asking each of its three turns once', () => {
    expect(uncrashed).toEqual({ reason: 'goal_met', turns: [0, 1, 2] });
  });

  // Runs one at a time: the server's request log is shared.
  it.each([
    ['the second turn (a tool call) after 2 of its chunks', { turn: 1, chunks: 2 }],
    ['the last turn (the claim) after 4 of its chunks', { turn: 2, chunks: 4 }],
  ])('killed during %s: that turn is asked again, no other, and the run ends as uncrashed', async (_name, kill) => {
    const result: Result = await crashDuringStream(model, kill, uncrashed);
    expect(result.violations, result.cut).toEqual([]);
  }, 60_000);
});
