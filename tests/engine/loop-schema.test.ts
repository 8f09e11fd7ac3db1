import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parsePolicy } from '../../src/engine/policy.js';
import {
  docRows,
  GENERATED,
  loopJsonSchema,
  renderJsonSchema,
  renderLoopYamlDocs,
  type JsonSchemaNode,
} from '../../schema/render.js';

const root = path.resolve(import.meta.dirname, '../..');
const read = (relative: string) => fs.readFileSync(path.join(root, relative), 'utf8');

const BASE = {
  goal: { objective: 'fix it' },
  agent: { kind: 'scripted', script: 's.yaml' },
  workspace: { path: 'ws' },
  verify: [{ command: 'node --test' }],
};

/** Every key written out with the default the JSON Schema documents (mappings recursively). */
function documentedDefaults(node: JsonSchemaNode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(node.properties ?? {})) {
    if (prop.properties && 'default' in prop) out[key] = documentedDefaults(prop);
    else if ('default' in prop) out[key] = prop.default;
  }
  return out;
}

describe('generated from the schema', () => {
  it(`${GENERATED.jsonSchema} is up to date (run npm run docs)`, () => {
    expect(read(GENERATED.jsonSchema)).toBe(renderJsonSchema());
  });

  it(`${GENERATED.docs} is up to date (run npm run docs)`, () => {
    expect(read(GENERATED.docs)).toBe(renderLoopYamlDocs());
  });

  it('npm run docs -- --check passes on the committed files', async () => {
    const result = await execa(path.join(root, 'node_modules/.bin/tsx'), ['schema/generate.ts', '--check'], { cwd: root, reject: false });
    expect([result.exitCode, result.stderr]).toEqual([0, '']);
  });

  it('the root loop.yaml points editors at the schema on its first line', () => {
    expect(read('loop.yaml').split('\n')[0]).toBe('# yaml-language-server: $schema=./schema/loop.schema.json');
  });

  it('covers every section of loop.yaml, each with a description and without extra keys', () => {
    const schema = loopJsonSchema();
    expect(Object.keys(schema.properties ?? {}).sort()).toEqual(
      [
        'goal', 'pattern', 'patterns', 'task', 'agent', 'workspace', 'budget', 'pricing', 'checkpoint', 'observe', 'progress',
        'stagnation', 'repetition', 'verify', 'approval', 'laps', 'hooks', 'hook_timeout', 'on_abort', 'tools',
      ].sort(),
    );
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['goal', 'agent', 'workspace', 'verify']);
  });

  it('documents every key with a type and a description, and a default unless it is required or optional by design', () => {
    const rows = docRows(loopJsonSchema(), '');
    expect(rows.filter((r) => r.description === '').map((r) => r.key)).toEqual([]);
    expect(rows.filter((r) => r.type === 'any').map((r) => r.key)).toEqual([]);
    expect(rows.filter((r) => r.default === 'optional').map((r) => r.key)).toEqual([
      'goal.success_criteria[].check',
      'goal.constraints[].protect',
      'goal.constraints[].command',
      'agent.base_url',
      'agent.api_key_env',
      'agent.temperature',
      'agent.max_tokens',
      'agent.context_tokens',
      'pricing.cached_input_per_million_usd',
      'observe[].pattern',
      'observe[].report_file',
      'observe[].output_limit_bytes',
      'hooks[].timeout',
      'hooks[].on_hook_error',
    ]);
  });

  it('the documented defaults are the defaults applied: writing them all out changes nothing', () => {
    const minimal = parsePolicy(stringify(BASE), 'loop.yaml');
    const explicit = { ...documentedDefaults(loopJsonSchema()), ...BASE };
    expect(explicit).toMatchObject({ budget: { max_iterations: 50, max_wall_clock: '30m', max_tokens: 'unlimited' }, laps: { enabled: false } });
    expect(parsePolicy(stringify(explicit), 'loop.yaml')).toEqual(minimal);
  });

  it('lists the defaults in one table per section', () => {
    const docs = renderLoopYamlDocs();
    for (const row of [
      '| `repetition.window` | integer ≥ 2 | `5` |',
      '| `repetition.on_detect` | one of `alert`, `pause`, `stop` | `pause` |',
      '| `laps.progress_file` | string | `PROGRESS.md` |',
      '| `on_abort.stash` | `true` or `false` | `true` |',
      '| `budget.on_exhausted` | one of `pause`, `abort` | `pause` |',
      '| `budget.max_iterations` | positive integer or `unlimited` | `50` |',
      '| `budget.max_wall_clock` | `unlimited` or duration (`90s`, `10m`, `1h30m`) | `30m` |',
    ]) {
      expect(docs).toContain(row);
    }
  });
});
