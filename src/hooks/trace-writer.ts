import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { HOOK_TOPICS, type HookRegistry } from '../engine/hooks.js';
import { createRedactor, type Redactor } from '../engine/redact.js';
import { toJson } from '../text/json.js';

/**
 * The trace writer: appends one line per hook call (`<topic> <payload JSON>`) to
 * `trace.log` in the run directory, for auditing which policies saw what. Payloads are
 * redacted before they are written (`redact`: the run's redactor; default: this process's
 * secrets), and the JSON has control and bidi characters escaped (see `toJson`): the trace
 * is safe to `cat`.
 */
export function traceWriter(registry: HookRegistry, runDir: string, redact: Redactor = createRedactor()): void {
  const file = path.join(runDir, 'trace.log');
  mkdirSync(runDir, { recursive: true });
  for (const topic of HOOK_TOPICS) {
    registry.on(topic, 'trace-writer', (payload) => {
      appendFileSync(file, `${topic} ${toJson(redact(payload))}\n`);
    });
  }
}
