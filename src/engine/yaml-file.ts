import { readFileSync, statSync } from 'node:fs';
import { isNode, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { ConfigError, ConfigErrors } from './errors.js';

/** Largest YAML file accepted, in bytes. */
export const MAX_YAML_BYTES = 1024 * 1024;

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function positionOf(doc: Document, lines: LineCounter, keys: readonly PropertyKey[]): string | undefined {
  for (let n = keys.length; n >= 0; n--) {
    const node = n === 0 ? doc.contents : doc.getIn(keys.slice(0, n) as unknown[], true);
    if (isNode(node) && node.range) {
      const { line, col } = lines.linePos(node.range[0]);
      return `${line}:${col}`;
    }
  }
  return undefined;
}

/** `agent.script`, `observe[0].command`: the path as a person writes it. */
export function dottedPath(keys: readonly PropertyKey[]): string {
  return keys.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('').replace(/^\./, '');
}

function findForbiddenKey(value: unknown, at: PropertyKey[] = []): PropertyKey[] | null {
  if (value === null || typeof value !== 'object') return null;
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key)) return [...at, Array.isArray(value) ? Number(key) : key];
    const found = findForbiddenKey((value as Record<string, unknown>)[key], [...at, Array.isArray(value) ? Number(key) : key]);
    if (found) return found;
  }
  return null;
}

/**
 * Parses YAML safely and validates it with a zod schema.
 *
 * Duplicate keys, YAML errors and warnings (e.g. unknown tags) are errors, never printed;
 * alias expansion is bounded; `__proto__`, `constructor` and `prototype` keys are refused.
 *
 * @param file the name used in every error
 * @throws ConfigErrors with one ConfigError per problem: file, YAML path, `line:column`, expectation
 */
export function parseYamlWith<S extends z.ZodType>(schema: S, source: string, file: string): z.output<S> {
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, uniqueKeys: true, strict: true, prettyErrors: false });
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length > 0) {
    throw new ConfigErrors(
      problems.map((e) => {
        const pos = lines.linePos(e.pos[0]);
        return new ConfigError(file, '', e.message.split('\n')[0] ?? e.message, `${pos.line}:${pos.col}`);
      }),
    );
  }
  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 50 });
  } catch (error) {
    throw new ConfigErrors([new ConfigError(file, '', `cannot expand the document: ${(error as Error).message}`)]);
  }
  const forbidden = findForbiddenKey(raw);
  if (forbidden) {
    throw new ConfigErrors([
      new ConfigError(file, dottedPath(forbidden), 'this key name is not allowed', positionOf(doc, lines, forbidden)),
    ]);
  }
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  throw new ConfigErrors(
    parsed.error.issues.map((issue) => {
      const unknownKey = issue.code === 'unrecognized_keys';
      const keys = unknownKey ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
      const message = unknownKey ? `unknown key "${issue.keys.join('", "')}"` : issue.message;
      return new ConfigError(file, dottedPath(keys), message, positionOf(doc, lines, keys));
    }),
  );
}

/**
 * Reads a YAML file and validates it with {@link parseYamlWith}.
 * @throws ConfigErrors when the file cannot be read, is larger than `maxBytes`, or is invalid
 */
export function loadYamlWith<S extends z.ZodType>(schema: S, file: string, maxBytes = MAX_YAML_BYTES): z.output<S> {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new ConfigErrors([new ConfigError(file, '', `cannot read the file (${(error as NodeJS.ErrnoException).code ?? String(error)})`)]);
  }
  if (size > maxBytes) throw new ConfigErrors([new ConfigError(file, '', `expected at most ${maxBytes} bytes, found ${size}`)]);
  return parseYamlWith(schema, readFileSync(file, 'utf8'), file);
}
