// Shared pieces of the quit, abort and crash tests: a loopback chat-completions server that
// can stall a stream, a run directory's log, and a look at which processes still run.
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface LogEvent {
  seq: number;
  type: string;
  data: Record<string, any>;
}

/** The run directory under `cwd` (`.loopdeck/runs/<session>`), once it exists. */
export function runDir(cwd: string): string | null {
  const runs = path.join(cwd, '.loopdeck/runs');
  if (!existsSync(runs)) return null;
  const [run] = readdirSync(runs);
  return run ? path.join(runs, run) : null;
}

/** Every complete line of the run's log under `cwd`, parsed (none before it exists). */
export function logEvents(cwd: string): LogEvent[] {
  const dir = runDir(cwd);
  if (!dir || !existsSync(path.join(dir, 'events.jsonl'))) return [];
  const text = readFileSync(path.join(dir, 'events.jsonl'), 'utf8');
  return text
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line) as LogEvent);
}

/** Polls `check` every 25 ms until it is true; fails after `ms` naming `what`. */
export async function until(check: () => boolean, what: string, ms = 15_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Pids of the processes whose command line contains `marker` (Linux /proc), zombies left
 * out; with `exact`, whose command line is `marker` (so a shell running it is not counted).
 */
export function running(marker: string, exact = false): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if ((exact ? cmdline === marker : cmdline.includes(marker)) && state !== 'Z') found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

/** Kills whatever a failed test left running under `marker`. */
export function killAll(marker: string): void {
  for (const pid of running(marker)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

function chunk(delta: Record<string, unknown>, finish: string | null = null) {
  return { id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finish }] };
}

/**
 * A chat-completions server on loopback. With `stall` set, a request gets its headers and
 * one chunk of text, then nothing (the stream stays open); otherwise a streamed final
 * answer. Counts the requests it got and the ones it is holding.
 */
export class ModelServer {
  stall = true;
  requests = 0;
  held: ServerResponse[] = [];
  private server!: Server;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        this.requests += 1;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (this.stall) {
          res.write(`data: ${JSON.stringify(chunk({ role: 'assistant', content: 'Thinking about ' }))}\n\n`);
          this.held.push(res);
          return;
        }
        for (const part of [chunk({ role: 'assistant', content: 'The goal is met.' }), chunk({}, 'stop')]) res.write(`data: ${JSON.stringify(part)}\n\n`);
        res.end('data: [DONE]\n\n');
      });
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  close(): void {
    for (const res of this.held) res.destroy();
    this.server.closeAllConnections();
    this.server.close();
  }
}
