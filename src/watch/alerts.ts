/**
 * What a following console (watch, attach) rings the terminal bell for and lists: the
 * detections a run of loopdeck's own acts on. Who acts on them differs: nobody can pause a
 * watched program; an attached run acts by its own policy (each source's `alertNote`).
 */
import type { LoopEvent } from '../engine/events.js';
import { budgetName, spentText } from '../engine/budget-units.js';

/** The bell character (BEL): terminals ring or flash on it. */
export const BEL = '\u0007';

/**
 * One line for an event that is an alert, or `null`: repetition, stagnation, checkpoints
 * that measured nothing, a budget limit reached. Budget warnings below the limit are not
 * alerts. The line may quote the agent: sanitize before printing.
 */
export function alertOf(event: LoopEvent): string | null {
  switch (event.type) {
    case 'repetition.detected':
      return `repetition: ${event.data.rule ?? `the same call ${event.data.count}×`}`;
    case 'stagnation.detected':
      return `stagnation: ${event.data.counter}/${event.data.threshold} checkpoints without observed progress (turn ${event.data.iteration})`;
    case 'checkpoint.unknown':
      return `unknown progress: ${event.data.in_row} checkpoints in a row measured nothing (${event.data.why})`;
    case 'budget.warn': {
      if (!event.data.exceeded) return null;
      const { dimension, used, limit } = event.data;
      return `budget: ${budgetName(dimension)} reached its limit (${spentText(dimension, used, limit)})`;
    }
    default:
      return null;
  }
}
