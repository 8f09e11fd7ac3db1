import { existsSync, realpathSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { simpleGit } from 'simple-git';
import path from 'node:path';
import { z } from 'zod';
import { ToolError } from './errors.js';
import { runShell } from './process.js';
import { boundText } from './redact.js';
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
const listArgs = z.strictObject({ path: z.string().min(1).default('.'), max: z.int().positive().max(5000).default(500) });
const diffArgs = z.strictObject({ path: z.string().min(1).optional(), staged: z.boolean().default(false) });

const SKIP_DIRS = new Set(['.git', 'node_modules']);

async function listFiles(root: string, base: string, max: number): Promise<{ files: string[]; more: boolean }> {
  const files: string[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const dir = queue.shift()!;
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) queue.push(full);
      } else {
        if (files.length >= max) return { files, more: true };
        files.push(path.relative(base, full));
      }
    }
  }
  return { files, more: false };
}

async function gitIn(tool: string, workspace: string) {
  const git = simpleGit(workspace);
  if (!(await git.checkIsRepo())) throw new ToolError(tool, 'the workspace is not a git repository');
  return git;
}

const TOOLS: Record<string, ToolFn> = {
  async list_files(args, ctx) {
    const { path: rel, max } = parseArgs('list_files', listArgs, args);
    const dir = confine('list_files', ctx.workspace, rel);
    const { files, more } = await listFiles(dir, realpathSync(ctx.workspace), max).catch((error: NodeJS.ErrnoException) => {
      throw new ToolError('list_files', `cannot list "${rel}" (${error.code ?? error.message})`);
    });
    const tail = more ? `\n[... more than ${max} files; list a subfolder]` : '';
    return { status: 'ok', output: bound(files.join('\n') + tail, ctx.outputLimit), exit_code: null };
  },
  async git_status(args, ctx) {
    parseArgs('git_status', z.strictObject({}), args);
    const status = await (await gitIn('git_status', ctx.workspace)).status();
    const lines = [
      `branch: ${status.current ?? '(detached)'}`,
      ...status.files.map((f) => `${f.index}${f.working_dir} ${f.path}`),
    ];
    return { status: 'ok', output: bound(lines.join('\n'), ctx.outputLimit), exit_code: null };
  },
  async git_diff(args, ctx) {
    const { path: rel, staged } = parseArgs('git_diff', diffArgs, args);
    const git = await gitIn('git_diff', ctx.workspace);
    const options = [...(staged ? ['--cached'] : []), ...(rel ? ['--', path.relative(realpathSync(ctx.workspace), confine('git_diff', ctx.workspace, rel))] : [])];
    const diff = await git.diff(options);
    return { status: 'ok', output: bound(diff || '(no changes)', ctx.outputLimit), exit_code: null };
  },
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

/** Keeps the head and tail of `text` within `limit` characters, saying how much was dropped (secrets redacted first). */
const bound = (text: string, limit: number): string => boundText(text, limit);
