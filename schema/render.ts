import type { Command } from 'commander';
/**
 * Renders the generated artefacts of the loop.yaml schema: the JSON Schema editors read
 * (`schema/loop.schema.json`) and the key-by-key reference (`docs/loop-yaml.md`). Both come
 * from {@link LOOP_SCHEMA} in src/engine/policy.ts, the one place where keys, types and
 * defaults are defined. `npm run docs` writes them; a test fails when they are stale.
 */
import { z } from 'zod';
import { MAX_BUDGET_SECONDS, MAX_TIMER_SECONDS } from '../src/engine/duration.js';
import { MAX_BUDGET_USD } from '../src/engine/budget-units.js';
import { LOOP_SCHEMA, MAX_CONFIG_BYTES } from '../src/engine/policy.js';
import { MAX_ECHO_CHARS, MAX_YAML_DEPTH } from '../src/engine/yaml-bounds.js';
import { MAX_ALIAS_EXPANSION } from '../src/engine/yaml-file.js';

/** A JSON Schema node, as far as the renderer reads it. */
export interface JsonSchemaNode {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchemaNode[];
  properties?: Record<string, JsonSchemaNode>;
  required?: string[];
  items?: JsonSchemaNode;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  minItems?: number;
  pattern?: string;
  additionalProperties?: boolean | JsonSchemaNode;
}

/** Generated files, relative to the repository root, and what writes each. */
export const GENERATED = {
  jsonSchema: 'schema/loop.schema.json',
  docs: 'docs/loop-yaml.md',
  reference: 'docs/reference.md',
} as const;

/** The JSON Schema of loop.yaml as written (zod's input side), draft-07 for the widest editor support. */
export function loopJsonSchema(): JsonSchemaNode {
  const schema = z.toJSONSchema(LOOP_SCHEMA, { io: 'input', target: 'draft-7' }) as JsonSchemaNode;
  // Top-level `x-` keys are user extension fields loopdeck ignores (EXTENSION_KEY).
  return { ...schema, patternProperties: { '^x-': {} } } as JsonSchemaNode;
}

/** `schema/loop.schema.json`: the JSON Schema, two-space indented, with a final newline. */
export function renderJsonSchema(): string {
  return `${JSON.stringify(loopJsonSchema(), null, 2)}\n`;
}

// ---------------------------------------------------------------------------------------
// docs/loop-yaml.md

/** One documented key. */
export interface DocRow {
  /** `budget.max_iterations`, `observe[].timeout`. */
  key: string;
  type: string;
  /** Rendered default, `required`, or `optional` (no default). */
  default: string;
  description: string;
}

const SAFE_MAX = Number.MAX_SAFE_INTEGER;

function code(value: unknown): string {
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
}

function bounds(node: JsonSchemaNode): string[] {
  const parts: string[] = [];
  if (node.exclusiveMinimum !== undefined) parts.push(`> ${node.exclusiveMinimum}`);
  if (node.minimum !== undefined && node.minimum > -SAFE_MAX) parts.push(`≥ ${node.minimum}`);
  if (node.exclusiveMaximum !== undefined) parts.push(`< ${node.exclusiveMaximum}`);
  if (node.maximum !== undefined && node.maximum < SAFE_MAX) parts.push(`≤ ${node.maximum}`);
  return parts;
}

/** A short type label: `positive integer or "unlimited"`, `duration`, `list of string`. */
export function typeLabel(node: JsonSchemaNode): string {
  if (node.title === 'duration') return 'duration (`90s`, `10m`, `1h30m`)';
  if (node.anyOf) return [...new Set(node.anyOf.map(typeLabel))].join(' or ');
  if (node.const !== undefined) return code(node.const);
  if (node.enum) return `one of ${node.enum.map(code).join(', ')}`;
  switch (node.type) {
    case 'integer':
    case 'number': {
      const word = node.type;
      const b = bounds(node);
      if (b.length === 1 && b[0] === '> 0') return `positive ${word}`;
      return b.length > 0 ? `${word} ${b.join(' and ')}` : word;
    }
    case 'string':
      // `\S`: some character other than a space (a command, a path), said in words.
      if (node.pattern === '\\S') return 'string, not blank';
      return node.pattern ? `string matching \`${node.pattern}\`` : 'string';
    case 'boolean':
      return '`true` or `false`';
    case 'array': {
      const item = node.items ? typeLabel(node.items) : 'anything';
      return node.minItems ? `list of ${item} (at least ${node.minItems})` : `list of ${item}`;
    }
    case 'object':
      return 'mapping';
    default:
      return 'any';
  }
}

function defaultLabel(node: JsonSchemaNode, required: boolean): string {
  if (required) return 'required';
  if (!('default' in node)) return 'optional';
  const value = node.default;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) {
    return 'defaults below';
  }
  return code(value);
}

/** The object variants of a node: itself, or the objects of its `anyOf`. */
function objectsOf(node: JsonSchemaNode | undefined): JsonSchemaNode[] {
  if (!node) return [];
  if (node.properties) return [node];
  return (node.anyOf ?? []).filter((option) => option.properties);
}

/** The discriminating `const` of an object variant, e.g. `kind: scripted`. */
function variantName(node: JsonSchemaNode): string | undefined {
  for (const [key, prop] of Object.entries(node.properties ?? {})) {
    if (prop.const !== undefined) return `${key}: ${String(prop.const)}`;
  }
  return undefined;
}

/** Every key under `node`, depth first, in the order the schema defines them. */
export function docRows(node: JsonSchemaNode, prefix: string): DocRow[] {
  const rows: DocRow[] = [];
  const variants = objectsOf(node);
  for (const variant of variants) {
    // In a union of mappings (agent), the discriminating key's row describes its variant.
    const discriminator = variants.length > 1 ? variantName(variant)?.split(':')[0] : undefined;
    for (const [key, prop] of Object.entries(variant.properties ?? {})) {
      const full = prefix ? `${prefix}.${key}` : key;
      const required = variant.required?.includes(key) ?? false;
      const description = key === discriminator ? variant.description ?? '' : prop.description ?? '';
      rows.push({ key: full, type: typeLabel(prop), default: defaultLabel(prop, required), description });
      rows.push(...docRows(prop, full));
      if (prop.type === 'array' && prop.items) rows.push(...docRows(prop.items, `${full}[]`));
    }
  }
  return rows;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function table(rows: DocRow[]): string {
  const lines = ['| Key | Type | Default | Description |', '| --- | --- | --- | --- |'];
  for (const row of rows) lines.push(`| \`${row.key}\` | ${cell(row.type)} | ${cell(row.default)} | ${cell(row.description)} |`);
  return lines.join('\n');
}

const PREAMBLE = `<!-- Generated by \`npm run docs\` from src/engine/policy.ts (LOOP_SCHEMA). Do not edit by hand. -->

# loop.yaml reference

Every key of \`loop.yaml\`, its type, its default and what it does. The schema in
\`src/engine/policy.ts\` is the one place where they are defined; this page and
\`schema/loop.schema.json\` are generated from it. With the first line

\`\`\`yaml
# yaml-language-server: $schema=./schema/loop.schema.json
\`\`\`

editors that use the YAML language server complete and check the file as you type.
\`loopdeck validate [loop.yaml]\` prints the effective config or every error. The config is
printed in loop.yaml's own keys and units (defaults filled in, durations like \`1h30m\`,
\`unlimited\`, paths relative to the file's folder), as JSON, which is YAML: pasted into a
loop.yaml in the same folder it reads as the same config.

## Rules for every value

- **Unknown keys are errors**, with the nearest allowed key suggested
  (\`unknown key "max_iteration"; did you mean "max_iterations"?\`), or the keys the
  mapping takes when none is near (\`unknown key "retries"; expected one of: goal, pattern, …\`).
- **Text is never blank**: a goal, a command, a name or a path made only of spaces or of
  characters drawn as nothing (a zero-width space, a joiner, a no-break space) is refused
  like an empty one.
- **Top-level keys starting with \`x-\` are ignored**: extension fields of your own (the
  docker-compose convention), e.g. a place for YAML anchors:
  \`x-common: &timeout 60s\` then \`timeout: *timeout\`. They are not part of the
  effective config \`validate\` prints. Elsewhere, and without the \`x-\` prefix, an unknown
  key is an error.
- Each error names the file, the YAML path of the offending value
  (\`goal.success_criteria[0].check.command\`) and its \`line:column\` (both from 1; a
  column counts UTF-16 code units, as VS Code does, so an emoji before it counts two), what
  was expected and what was found; all errors are listed at once, in the order of the file: a problem
  of the YAML itself (a duplicate key, a tag, a leading zero) does not hide the errors of
  the rest of the document, only text that does not parse as YAML does, and a tagged value
  that reads the same without its tag (\`kind: !!str scriptd\`) is checked as well. A value of
  two forms is read as the form its keys name (a check with \`command\` is a command check,
  with \`signal\` a signal check); one with the keys of both, or of neither, says so. A
  misspelt \`agent.kind\` near a kind (\`scriptd\`) is named, and the rest of its section is
  checked as that kind, each such error saying so (\`(agent checked as kind: scripted)\`).
- The file is read as YAML 1.2 in UTF-8 (another encoding is an error at its first byte
  that is not UTF-8): at most ${MAX_CONFIG_BYTES} bytes, one document (a second
  one after \`---\` is an error), nested at most ${MAX_YAML_DEPTH} levels deep. Duplicate keys,
  tags (\`!foo\`, and the standard ones such as \`!!str\`), \`%YAML 1.1\` directives, keys that are not plain scalars and the keys
  \`__proto__\`, \`constructor\` and \`prototype\` are errors, and so are merge keys
  (\`<<: *base\`, YAML 1.1's): write the keys out, or the alias alone (\`budget: *base\`)
  when no key is added or changed. Aliases may add at most
  ${MAX_ALIAS_EXPANSION} nodes to the document. Errors quote at most ${MAX_ECHO_CHARS} characters of a key
  or value.
- **Text** (the goal, commands, names, paths) holds no control character but tab and
  newline, whether written raw or escaped (\`"\\0"\`, \`"\\e"\`): a NUL cannot be passed to a
  process, and the others act on the terminal. Written raw, a control character is an error
  anywhere in the file, comments included, as YAML 1.2 takes none but tab and line breaks;
  escaped in double quotes, a value that may hold one (a metric \`pattern\`) takes it.
- **Booleans** are \`true\` or \`false\`. YAML 1.2 reads \`yes\`, \`no\`, \`on\`, \`off\` as
  strings, so they are errors (with a hint what to write).
- **Numbers** are written without leading zeros (\`010\` is an error: YAML 1.2 reads 10,
  YAML 1.1 reads 8). \`.nan\` and \`.inf\` are not numbers a limit accepts. A number
  past what its key takes is an error that names the bound: a count or any other integer
  is at most ${Number.MAX_SAFE_INTEGER} (the largest whole number a number holds exactly), a
  cost at most ${MAX_BUDGET_USD} USD. Errors quote a number as it is written
  (\`1e400\`, \`99999999999999999999\`), not as the value it is read as.
- **Budget limits** are positive numbers or \`unlimited\`, written out: \`0\` and an empty
  value are errors, never "no limit". A budget where every limit is \`unlimited\` is an
  error: a run with no bound at all refuses to start.
- **Durations** use the grammar \`<h>h<m>m<s>s\`, each unit at most once and in that order,
  without leading zeros: \`90s\`, \`10m\`, \`1h30m\`, \`1h2m3s\`. A bare number (\`90\`) or
  \`1:30\` is an error. A timeout is at most ${MAX_TIMER_SECONDS / 3600}h (24 days: Node fires a
  longer timer at once); \`budget.max_wall_clock\` and its increment at most
  ${MAX_BUDGET_SECONDS / 3600}h (365 days).
- Relative paths (\`agent.script\`, \`workspace.path\`, the program \`agent.command\` and a
  hook's \`command\` start) resolve against the directory of \`loop.yaml\` (a command agent
  still runs in the workspace); \`laps.progress_file\` is relative to the workspace.
`;

/** `docs/loop-yaml.md`: the preamble, then one section per top-level key with a table of its keys. */
export function renderLoopYamlDocs(): string {
  const root = loopJsonSchema();
  const sections = Object.entries(root.properties ?? {}).map(([key, prop]) => {
    const required = root.required?.includes(key) ?? false;
    const head: DocRow = { key, type: typeLabel(prop), default: defaultLabel(prop, required), description: prop.description ?? '' };
    const rows = [head, ...docRows(prop, key), ...(prop.type === 'array' && prop.items ? docRows(prop.items, `${key}[]`) : [])];
    return `## \`${key}\`${required ? ' (required)' : ''}\n\n${prop.description ?? ''}\n\n${table(rows)}\n`;
  });
  return `${PREAMBLE}\n${sections.join('\n')}`;
}

/**
 * The CLI reference for the README: the `--help` text of the program and of each
 * command, from the same commander definitions the CLI runs.
 */
export function renderCliReference(program: Command): string {
  const blocks = [program, ...program.commands].map((command) => {
    const title = command === program ? 'loopdeck --help' : `loopdeck ${command.name()} --help`;
    return `\`${title}\`\n\n\`\`\`\n${command.helpInformation().trimEnd()}\n\`\`\`\n`;
  });
  return blocks.join('\n');
}

/**
 * Replaces the text between `<!-- name:start -->` and `<!-- name:end -->` in `text`.
 * @throws Error when the markers are missing
 */
export function replaceBetween(text: string, name: string, content: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md has no ${start} ... ${end} section`);
  return `${text.slice(0, from + start.length)}\n${content.trimEnd()}\n${text.slice(to)}`;
}
