/**
 * Usage of one run of a CLI agent as the budget counts it (docs/design.md, "CLI agents"):
 * what its format never reports is marked unknown as soon as the format is known (not at the
 * end of the run: a lap can run for an hour), and tokens of a format that reports no cost
 * are priced by `pricing` when a price is set.
 */
import { costOf, type Pricing } from '../budget.js';
import { isPriced, type UsageDimension } from '../unmeasured-usage.js';
import { FORMAT_MEASURES } from './transcripts/measures.js';
import type { AgentEventDraft } from './transcripts/record.js';
import type { ReportedUsage, TranscriptFormat } from './transcripts/types.js';

/** Stateful, for one run of the agent. */
export class UsageMeter {
  private known: TranscriptFormat | null = null;
  private readonly pricing: Pricing | null;

  /**
   * @param turn the loopdeck turn the run serves (what its events carry)
   * @param pricing `pricing` of loop.yaml; `null` or all prices 0: nothing is priced
   */
  constructor(
    private readonly turn: number,
    pricing: Pricing | null,
  ) {
    this.pricing = pricing && isPriced(pricing) ? pricing : null;
  }

  /**
   * Once per run, when its format is known (`text` only when it was configured, since
   * `auto` reads as `text` until a line tells): an `agent.usage` with nothing counted and
   * the dimensions the format never reports as `unreported`; `null` when it reports all.
   */
  announce(format: TranscriptFormat): AgentEventDraft | null {
    if (this.known !== null) return null;
    this.known = format;
    const unreported = this.unreported(format);
    if (unreported.length === 0) return null;
    return { type: 'agent.usage', data: { turn: this.turn, input_tokens: null, output_tokens: null, cost_usd: null, unreported } };
  }

  /**
   * The usage to record for one parsed record: a record of a format that never reports cost
   * gets the cost of its tokens when a price is set and both token counts are known (a
   * missing count is not 0, so a partial count is not priced).
   */
  price(usage: ReportedUsage, format: TranscriptFormat): ReportedUsage {
    const { input_tokens, output_tokens } = usage;
    if (usage.cost_usd !== null || FORMAT_MEASURES[format].cost || !this.pricing) return usage;
    if (input_tokens === null || output_tokens === null) return usage;
    return { ...usage, cost_usd: costOf({ input_tokens, output_tokens }, this.pricing) };
  }

  private unreported(format: TranscriptFormat): UsageDimension[] {
    const measures = FORMAT_MEASURES[format];
    const out: UsageDimension[] = [];
    if (!measures.tokens) out.push('tokens');
    if (!measures.cost && !(measures.tokens && this.pricing)) out.push('cost_usd');
    return out;
  }
}
