import { existsSync, realpathSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { ToolError } from './errors.js';
import { runShell } from './process.js';
import type { ToolCall, ToolStatus } from './types.js';

/** Where and how tools run. */
export interface ToolContext {
  /** Absolute path of the workspace; every path a tool touches must resolve inside it. */
  workspace: string;
  /** Seconds before a shell command's process group is killed. */
  shellTimeoutSeconds: number;
  /** Characters of output returned to the agent. */
  outputLimit: number;
  signal?: AbortSignal;
}

/** What a tool returns before the engine wraps it into a `ToolResult`. */
export interface ToolOutcome {
  status: Exclude<ToolStatus, 'denied'>;
  output: string;
  exit_code: number | null;
}

type ToolFn = (args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutcome>;

/**
 * Resolves `relative` inside the workspace, following symlinks of the part that exists.
 * @throws ToolError for absolute paths, `..` escapes and symlinks that point outside
 */
export function confine(tool: string, workspace: string, relative: string): string {
  if (path.isAbsolute(relative)) throw new ToolError(tool, `path "${relative}" must be relative to the workspace`);
  const root = realpathSync(workspace);
  const target = path.resolve(root, relative);
  let existing = target;
  while (!existsSync(existing)) existing = path.dirname(existing);
  const real = path.join(realpathSync(existing), path.relative(existing, target));
  const rel = path.relative(root, real);
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new ToolError(tool, `path "${relative}" is outside the workspace`);
  return real;
}

function parseArgs<T extends z.ZodType>(tool: string, schema: T, args: unknown): z.output<T> {
  const parsed = schema.safeParse(args);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ToolError(tool, `bad arguments: ${issue?.path.join('.') || 'args'}: ${issue?.message}`);
  }
  return parsed.data;
}

const shellArgs = z.strictObject({ command: z.string().min(1) });
const pathArgs = z.strictObject({ path: z.string().min(1) });
const writeArgs = z.strictObject({ path: z.string().min(1), content: z.string() });
const editArgs = z.strictObject({ path: z.string().min(1), find: z.string().min(1), replace: z.string() });

const TOOLS: Record<string, ToolFn> = {
  async shell(args, ctx) {
    const { command } = parseArgs('shell', shellArgs, args);
    const result = await runShell(command, {
      cwd: ctx.workspace,
      timeoutSeconds: ctx.shellTimeoutSeconds,
      outputLimitBytes: ctx.outputLimit,
      signal: ctx.signal,
    });
    if (result.spawn_error) throw new ToolError('shell', result.spawn_error);
    const status = result.timed_out ? 'timed_out' : result.exit_code === 0 ? 'ok' : 'failed';
    return { status, output: result.output, exit_code: result.exit_code };
  },
  async read_file(args, ctx) {
    const file = confine('read_file', ctx.workspace, parseArgs('read_file', pathArgs, args).path);
    const content = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new ToolError('read_file', `cannot read "${args.path}" (${error.code ?? error.message})`);
    });
    return { status: 'ok', output: bound(content, ctx.outputLimit), exit_code: null };
  },
  async write_file(args, ctx) {
    const { path: rel, content } = parseArgs('write_file', writeArgs, args);
    const file = confine('write_file', ctx.workspace, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content, 'utf8');
    return { status: 'ok', output: `wrote ${Buffer.byteLength(content)} bytes to ${rel}`, exit_code: null };
  },
  async edit(args, ctx) {
    const { path: rel, find, replace } = parseArgs('edit', editArgs, args);
    const file = confine('edit', ctx.workspace, rel);
    const content = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new ToolError('edit', `cannot read "${rel}" (${error.code ?? error.message})`);
    });
    const count = content.split(find).length - 1;
    if (count === 0) throw new ToolError('edit', `the text to find does not occur in ${rel}`);
    if (count > 1) throw new ToolError('edit', `the text to find occurs ${count} times in ${rel}; it must occur exactly once`);
    await writeFile(file, content.replace(find, () => replace), 'utf8');
    return { status: 'ok', output: `edited ${rel}`, exit_code: null };
  },
};

/** Names of the built-in tools. */
export const TOOL_NAMES = Object.keys(TOOLS);

/**
 * Runs one tool call in the workspace.
 * @throws ToolError for an unknown tool, bad arguments, a path outside the workspace,
 *   an edit whose text is absent or not unique, or a shell that cannot start
 */
export async function runTool(call: ToolCall, ctx: ToolContext): Promise<ToolOutcome> {
  const tool = TOOLS[call.name];
  if (!tool) throw new ToolError(call.name, `unknown tool (known: ${TOOL_NAMES.join(', ')})`);
  return tool(call.args, ctx);
}

/** Keeps the head and tail of `text` within `limit` characters, saying how much was dropped. */
function bound(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} characters truncated ...]\n${text.slice(-half)}`;
}
