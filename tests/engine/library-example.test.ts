/**
 * The engine as a library (docs/engine.md): the example there runs as written, imported
 * from the package (`loopdeck/engine`, through package.json `exports` and the built dist/),
 * and a TypeScript program using the exported types typechecks against the emitted .d.ts.
 * Needs `npm run build` (the test command builds first).
 */
import { execa } from 'execa';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A folder outside the repository where `loopdeck` is an installed package (a link to this checkout). */
function consumer(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'loopdeck-consumer-'));
  dirs.push(dir);
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(root, path.join(dir, 'node_modules', 'loopdeck'), 'dir');
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  return dir;
}

function exampleOf(markdown: string): string {
  const match = /```js example\n([\s\S]*?)```/.exec(markdown);
  if (!match) throw new Error('docs/engine.md has no ```js example block');
  return match[1]!;
}

describe('loopdeck/engine as a library', () => {
  it('the example of docs/engine.md runs as written and prints what the doc says', async () => {
    const dir = consumer();
    const doc = readFileSync(path.join(root, 'docs/engine.md'), 'utf8');
    writeFileSync(path.join(dir, 'example.mjs'), exampleOf(doc));
    const { stdout } = await execa('node', ['example.mjs'], { cwd: dir, env: { NO_COLOR: '1' } });
    const printed = /```text\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf('It prints:')))![1]!.trim().split('\n');
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(printed.length);
    printed.forEach((expected, i) => {
      if (expected.includes('events: N')) expect(lines[i]).toMatch(new RegExp(`^${expected.replace('events: N', 'events: \\d+')}$`));
      else expect(lines[i]).toBe(expected);
    });
  }, 60_000);

  it('deep imports of src/ or dist/ are not the API: only loopdeck/engine is exported', async () => {
    const dir = consumer();
    writeFileSync(path.join(dir, 'deep.mjs'), "await import('loopdeck/dist/engine/session.js');\n");
    const deep = await execa('node', ['deep.mjs'], { cwd: dir, reject: false });
    expect(deep.exitCode).not.toBe(0);
    expect(deep.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  }, 30_000);

  it('a TypeScript program typechecks against the emitted declarations', async () => {
    const dir = consumer();
    writeFileSync(
      path.join(dir, 'use.ts'),
      `import { Session, definePolicy, runTool, UsageError, HookRegistry, type Agent, type EnginePolicy, type PlanContext, type ToolOutcome, type ToolContext, type ToolCall, type LoopYield } from 'loopdeck/engine';
const policy: EnginePolicy = definePolicy({ goal: { objective: 'x' }, verify: [{ command: 'true' }] });
const agent: Agent = {
  name: 'a',
  async nextTurn() { return { tool_calls: [], usage: { input_tokens: 1, output_tokens: 1 }, final: 'done' }; },
  async plan(context: PlanContext) { return [context.kind]; },
};
async function tools(call: ToolCall, context: ToolContext): Promise<ToolOutcome> { return runTool(call, context); }
const session = new Session({ id: 's', agent, policy, workspace: '/tmp', runTool: tools });
const y: LoopYield | undefined = undefined;
const hooks = new HookRegistry();
export { session, y, hooks, UsageError };
// @ts-expect-error a tool outcome has a status
const bad: ToolOutcome = { output: '', exit_code: 0 };
export { bad };
`,
    );
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['use.ts'] }),
    );
    const tsc = await execa('node', [path.join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir, reject: false });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.exitCode).toBe(0);
  }, 120_000);
});
