/**
 * `loopdeck import`: a finished CLI agent transcript as a loopdeck event log that `replay`
 * shows and folds. The whole session is one run of the agent (one loopdeck turn, as a lap
 * of a `kind: command` agent would record it): `session.start`, the agent's messages,
 * usage, calls and results as `agent.*` and `tool.*` events marked `by: 'agent'`, one
 * `model.call` carrying the agent's answer, and `session.complete` (`stopped`: loopdeck
 * did not verify anything). Transcripts carry no clock loopdeck trusts: every event gets
 * the same `at` (the caller's, e.g. the file's modification time), so durations are 0.
 */
import { SCHEMA_VERSION, type EventDataMap, type EventType, type LoopEvent } from '../events.js';
import { newGoal } from '../goal.js';
import { TranscriptRecorder, type AgentEventDraft } from '../agents/transcripts/record.js';
import type { ImportFormat, TranscriptEntry } from '../agents/transcripts/index.js';
import type { LoopState } from '../machine.js';

/** What {@link importEvents} needs besides the entries. */
export interface ImportSource {
  /** The transcript's file name, shown as the goal ("imported … from <name>"). */
  name: string;
  format: ImportFormat;
  /** Session id of the log (e.g. derived from the file's hash). */
  session: string;
  /** Epoch milliseconds given to every event. */
  at: number;
}

/** The event log of an imported transcript, `seq` dense from 0. */
export function importEvents(entries: readonly TranscriptEntry[], source: ImportSource): LoopEvent[] {
  const events: LoopEvent[] = [];
  const push = <T extends EventType>(type: T, data: EventDataMap[T]) => {
    events.push({ seq: events.length, at: source.at, session: source.session, type, data } as LoopEvent);
  };
  const go = (from: LoopState, to: LoopState) => push('state.transition', { from, to });
  push('session.start', {
    schemaVersion: SCHEMA_VERSION,
    goal: newGoal(`imported ${source.format} session from ${source.name}`),
    pattern: 'react',
    pattern_reason: `imported from a ${source.format} transcript`,
    budget: { turns: null, tool_calls: null, wall_clock_seconds: null, tokens: null, cost_usd: null },
    workspace: '(imported: not known)',
    checkpoint_every: 0,
    stagnation_threshold: 0,
  });
  go('IDLE', 'PLANNING');
  go('PLANNING', 'EXECUTING');
  push('step.start', { step: 1, turn: 1, title: `the ${source.format} session` });
  const recorder = new TranscriptRecorder(1);
  for (const entry of entries) for (const draft of recorder.record(entry)) pushDraft(push, draft);
  const answer = recorder.result;
  const final = answer?.text || recorder.lastText || '(no answer recorded)';
  push('model.call', {
    turn: 1,
    request_hash: 'imported',
    response: { thought: `imported from ${source.name}`, tool_calls: [], usage: { input_tokens: 0, output_tokens: 0 }, final, agent_run: recorder.summary(source.format) },
    usage: { input_tokens: 0, output_tokens: 0 },
    cost_usd: 0,
  });
  push('step.end', { step: 1, outcome: answer && !answer.ok ? 'error' : 'ok', thought: final });
  go('EXECUTING', 'REFLECTING');
  go('REFLECTING', 'DONE');
  const how = answer ? (answer.ok ? 'the agent reported success' : 'the agent reported an error') : 'the transcript has no final result';
  // An agent that ended in an error could not go on (`failed`); any other imported end is `stopped`: nothing was verified.
  push('session.complete', { reason: answer && !answer.ok ? 'failed' : 'stopped', summary: `imported: ${how}; loopdeck verified nothing` });
  return events;
}

function pushDraft(push: <T extends EventType>(type: T, data: EventDataMap[T]) => void, draft: AgentEventDraft): void {
  push(draft.type, draft.data as never);
}
