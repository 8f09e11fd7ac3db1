// Guards against regrowth of the engine's control flow: no function in src/engine longer
// than a screenful (80 lines, declaration to closing brace, nested functions included),
// and the session a thin face over the runner. Measured with
// the TypeScript compiler's own parser, so every function, method, accessor and arrow counts.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const ENGINE = path.join(root, 'src/engine');
const MAX_FUNCTION_LINES = 80;
const MAX_SESSION_LINES = 300;

/** Functions allowed past the limit, with the length they may not exceed (none today: the event reducer is a table of small ones). */
const ALLOWED: Record<string, number> = {};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

interface Measured {
  where: string;
  name: string;
  lines: number;
}

function nameOf(node: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  if (node.name) return node.name.getText(file);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(file);
  return '(anonymous)';
}

/** Every function with a body in `file`, with its length in lines. */
export function measure(fileName: string, text: string): Measured[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: Measured[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = file.getLineAndCharacterOfPosition(fn.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(fn.getEnd()).line;
      found.push({ where: `${path.relative(ENGINE, fileName).split(path.sep).join('/')}:${first + 1}`, name: nameOf(fn, file), lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('the size of the engine', () => {
  const all = sources(ENGINE).flatMap((file) => measure(file, readFileSync(file, 'utf8')));

  it('measures what it should: functions, methods, accessors and arrows, nested ones too', () => {
    const sample = [
      'function a() {\n  const b = () => {\n    return 1;\n  };\n  return b();\n}',
      'class C {\n  get d() {\n    return 1;\n  }\n  e = function () {};\n}',
    ].join('\n');
    expect(measure(path.join(ENGINE, 'sample.ts'), sample).map((m) => [m.name, m.lines])).toEqual([
      ['a', 6],
      ['b', 3],
      ['d', 3],
      ['e', 1],
    ]);
    expect(all.length).toBeGreaterThan(500);
  });

  it(`no function is over ${MAX_FUNCTION_LINES} lines`, () => {
    const long = all.filter((m) => {
      const allowed = ALLOWED[`${m.where.split(':')[0]} ${m.name}`];
      return m.lines > (allowed ?? MAX_FUNCTION_LINES);
    });
    expect(long.map((m) => `${m.where} ${m.name}: ${m.lines} lines`)).toEqual([]);
  });

  it(`the session is under ${MAX_SESSION_LINES} lines`, () => {
    const lines = readFileSync(path.join(ENGINE, 'session.ts'), 'utf8').split('\n').length;
    expect(lines).toBeLessThan(MAX_SESSION_LINES);
  });
});
