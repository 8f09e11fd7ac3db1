/**
 * Where a run's socket hands approval requests to the engine: requests queue here while an
 * agent's turn runs and the runner takes them between its awaits (docs/design.md,
 * "Approvals of CLI agents"). Outside a turn nothing can be decided, so a request is denied.
 */
import type { BridgeRequest } from './protocol.js';

/** A decision on one bridged call; `reason` goes to the agent. */
export interface BridgeDecision {
  decision: 'allow' | 'deny';
  reason: string;
}

/** A request waiting in the inbox, with the way to answer it (once). */
export interface QueuedRequest {
  request: BridgeRequest;
  respond(decision: BridgeDecision): void;
}

/** The queue between a run's socket server and its runner. */
export class ApprovalInbox {
  private readonly queue: QueuedRequest[] = [];
  private serving = false;
  private waiter: { promise: Promise<void>; resolve: () => void } | null = null;

  /** Server side: queues `request`; resolves with the decision. Denied at once outside a turn. */
  submit(request: BridgeRequest): Promise<BridgeDecision> {
    if (!this.serving) return Promise.resolve({ decision: 'deny', reason: 'loopdeck is not running an agent turn that could make this call' });
    return new Promise((resolve) => {
      let answered = false;
      this.queue.push({
        request,
        respond: (decision) => {
          if (answered) return;
          answered = true;
          resolve(decision);
        },
      });
      this.waiter?.resolve();
      this.waiter = null;
    });
  }

  /** Runner side: a turn starts; requests are taken from now on. */
  open(): void {
    this.serving = true;
  }

  /** Runner side: the turn ended; what is still queued is denied with `reason`. */
  close(reason: string): void {
    this.serving = false;
    for (const queued of this.queue.splice(0)) queued.respond({ decision: 'deny', reason });
  }

  /** Resolves when a request is queued (at once if one is). */
  ready(): Promise<void> {
    if (this.queue.length > 0) return Promise.resolve();
    if (!this.waiter) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.waiter = { promise, resolve };
    }
    return this.waiter.promise;
  }

  /** The oldest queued request, taken off the queue. */
  take(): QueuedRequest | undefined {
    return this.queue.shift();
  }
}
