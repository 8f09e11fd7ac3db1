/**
 * docs/reference.md is generated from the schemas the code checks with (the staleness check
 * is in loop-schema.test.ts); its examples must be what the code accepts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScriptedAgent } from '../../src/engine/agents/scripted.js';
import { loadCheckpointFile } from '../../src/engine/checkpoint-file.js';
import { TOOL_NAMES } from '../../src/engine/tools.js';

const doc = readFileSync(path.resolve(import.meta.dirname, '../../docs/reference.md'), 'utf8');

function block(language: string): string {
  const match = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(doc);
  if (!match) throw new Error(`docs/reference.md has no ${language} block`);
  return match[1]!;
}

describe('docs/reference.md', () => {
  it('documents every built-in tool', () => {
    for (const name of TOOL_NAMES) expect(doc).toContain(`### \`${name}\``);
  });

  it("the transcript example is a transcript the scripted agent plays", async () => {
    const agent = ScriptedAgent.fromYaml(block('yaml'), 'reference.md');
    const first = await agent.nextTurn({ turn: 1, goal: { objective: 'x', success_criteria: [], constraints: [], status: 'active', notes: [], revision: 0 }, history: [] } as never);
    expect(first.tool_calls[0]).toMatchObject({ name: 'shell', args: { command: 'node --test' } });
  });

  it('the checkpoint file example is a file check reads', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'loopdeck-reference-'));
    try {
      const file = path.join(dir, '01.json');
      writeFileSync(file, block('json'));
      expect(loadCheckpointFile(file)).toMatchObject({ iteration: 3, observed: { 'tests.failing': 2 } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
