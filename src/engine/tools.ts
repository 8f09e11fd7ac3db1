import { randomBytes } from 'node:crypto';
import { constants, realpathSync } from 'node:fs';
import { access, lstat, mkdir, open, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { ToolError } from './errors.js';
import { resolveProgram, type EnginePolicy } from './policy.js';
import { git, isGitWorkTree } from './git.js';
import { escapedNote, runShell } from './process.js';
import { boundText } from './redact.js';
import type { ToolCall, ToolResult, ToolStatus } from './types.js';
import { confine, fsFailure, fsReason, gitConfigFile, gitInternalReason, harnessInternalReason, isDotLoopdeck, showPath, type HarnessPath } from './workspace-path.js';
import { HARNESS_TOOL_ARGS } from './tool-args.js';

/** Where and how tools run. */
export interface ToolContext {
  /** Absolute path of the workspace; every path a tool touches must resolve inside it. */
  workspace: string;
  /** Seconds before a shell command's process group is killed. */
  shellTimeoutSeconds: number;
  /** Characters of output returned to the agent. */
  outputLimit: number;
  signal?: AbortSignal;
  /**
   * loopdeck's own files that the file tools read but never write: the run directory, the
   * config file, the transcript (see {@link harnessFiles}). Any `.loopdeck` folder is
   * refused whether listed or not, for reading too (read_file refuses it, list_files and
   * git_status leave it out): it holds runs' logs and reports, no part of the project.
   */
  harness?: readonly HarnessPath[];
}

/** What a tool returns before the engine wraps it into a `ToolResult`. */
export interface ToolOutcome extends Pick<ToolResult, 'killed' | 'truncated' | 'output_bytes' | 'escaped'> {
  status: Exclude<ToolStatus, 'denied'>;
  output: string;
  exit_code: number | null;
}

type ToolFn = (args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolOutcome>;

export { confine } from './workspace-path.js';

/** Problems of a call's arguments an answer lists at most; the rest are counted. */
const LISTED_ARG_PROBLEMS = 5;

/** `bad arguments: <path>: <problem>; ...`: every problem the schema found (up to {@link LISTED_ARG_PROBLEMS}), so one answer fixes them all. */
function badArguments(issues: readonly z.core.$ZodIssue[]): string {
  const listed = issues.slice(0, LISTED_ARG_PROBLEMS).map((issue) => `${issue.path.join('.') || 'args'}: ${issue.message}`);
  const more = issues.length > LISTED_ARG_PROBLEMS ? `; and ${issues.length - LISTED_ARG_PROBLEMS} more` : '';
  return `bad arguments: ${listed.join('; ')}${more}`;
}

function parseArgs<T extends z.ZodType>(tool: string, schema: T, args: unknown): z.output<T> {
  const parsed = schema.safeParse(args);
  if (!parsed.success) throw new ToolError(tool, badArguments(parsed.error.issues));
  return parsed.data;
}

const { shell: shellArgs, read_file: pathArgs, write_file: writeArgs, edit: editArgs, list_files: listArgs, git_diff: diffArgs, git_status: statusArgs } = HARNESS_TOOL_ARGS;

const SKIP_DIRS = new Set(['.git', 'node_modules']);
/** Pathspec that leaves every `.loopdeck` folder (loopdeck's run logs and reports, any letter case) out of `git_status`. */
const STATE_PATHSPEC = ':(top,exclude,glob,icase)**/.loopdeck/**';

async function listFiles(root: string, base: string, max: number): Promise<{ files: string[]; more: boolean }> {
  const files: string[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const dir = queue.shift()!;
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        // loopdeck's own state is no part of the project (its runs' logs, in a workspace used in place).
        if (!SKIP_DIRS.has(entry.name) && !isDotLoopdeck(entry.name)) queue.push(full);
      } else {
        if (files.length >= max) return { files, more: true };
        files.push(path.relative(base, full));
      }
    }
  }
  return { files, more: false };
}

/** Fails the call unless the workspace is inside a git working tree. */
async function requireGit(tool: string, workspace: string): Promise<void> {
  if (!(await isGitWorkTree(workspace))) throw new ToolError(tool, 'the workspace is not a git repository');
}

/**
 * `branch: <name>` and one `XY path` line per changed path, from
 * `git status --porcelain=v1 -b -z` (a rename shows its new path).
 */
function statusLines(porcelain: string): string[] {
  const entries = porcelain.split('\0');
  const lines: string[] = [];
  for (let i = 0; i < entries.length; i += 1) {
    const entry = entries[i]!;
    if (entry === '') continue;
    if (entry.startsWith('## ')) {
      const head = entry.slice(3).replace(/^No commits yet on /, '');
      lines.push(`branch: ${head.startsWith('HEAD (no branch)') ? '(detached)' : head.split('...')[0]}`);
      continue;
    }
    lines.push(entry);
    if (/^(?:[RC].|.[RC]) /.test(entry)) i += 1; // the original path of a rename or copy follows
  }
  return lines;
}

/**
 * What is at `file` (a resolved path): `null` when nothing is.
 * @param doing the start of the message when it cannot be inspected, e.g. `cannot read`
 * @throws ToolError when it cannot be inspected (a file where a folder is expected, ...)
 */
async function kindAt(tool: string, doing: string, file: string, rel: string): Promise<'file' | 'folder' | 'other' | null> {
  try {
    const stat = await lstat(file);
    return stat.isFile() ? 'file' : stat.isDirectory() ? 'folder' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw fsFailure(tool, doing, rel, error);
  }
}

/** Confines `rel` and checks that a regular file is there. @throws ToolError naming the path and what is wrong */
async function readableFile(tool: string, workspace: string, rel: string): Promise<string> {
  const file = confine(tool, workspace, rel);
  const state = path.relative(realpathSync(workspace), file).split(path.sep).find(isDotLoopdeck);
  if (state !== undefined) {
    throw new ToolError(tool, `will not read ${showPath(rel)}: it is inside loopdeck's own state (${showPath(state)}), the logs and reports of runs, which are no part of the project`);
  }
  const kind = await kindAt(tool, 'cannot read', file, rel);
  if (kind === null) throw new ToolError(tool, `cannot read ${showPath(rel)}: no such file or folder (ENOENT)`);
  if (kind === 'folder') throw new ToolError(tool, `cannot read ${showPath(rel)}: it is a folder, expected a file (EISDIR)`);
  if (kind === 'other') throw new ToolError(tool, `cannot read ${showPath(rel)}: it is not a regular file (a fifo, socket or device)`);
  return file;
}

/**
 * Where a write of `rel` would land, confined, or the reason the file tools never write
 * there (the checks of {@link writableFile} that need no more than the path and the links
 * on it). @throws ToolError naming the path and the reason
 */
function writeTarget(tool: string, workspace: string, rel: string, harness?: readonly HarnessPath[]): string {
  const file = confine(tool, workspace, rel);
  const internal = gitInternalReason(workspace, file) ?? harnessInternalReason(workspace, file, harness);
  if (internal) throw new ToolError(tool, `will not write ${showPath(rel)}: ${internal}`);
  const reached = gitConfigFile(path.basename(file));
  const named = rel.split('/').filter((name) => name !== '' && name !== '.').at(-1) ?? '';
  if (reached && gitConfigFile(named) === null) {
    throw new ToolError(tool, `will not write ${showPath(rel)}: it is a symlink to git's ${reached}; write ${reached} by its own name, which the operator is asked about`);
  }
  return file;
}

/**
 * Confines `rel` for a write and refuses what the file tools never write: anything inside
 * git's own files (`.git`), anything of loopdeck's own (a `.loopdeck` folder, the run
 * directory, the config file, the transcript: `harness`), a git configuration file reached
 * through a symlink of another name (the approval gate judges the name the agent wrote),
 * and anything but a regular file.
 * @throws ToolError naming the path and the reason
 */
async function writableFile(tool: string, workspace: string, rel: string, harness?: readonly HarnessPath[]): Promise<string> {
  const file = writeTarget(tool, workspace, rel, harness);
  const kind = await kindAt(tool, 'cannot write', file, rel);
  if (kind === 'folder') throw new ToolError(tool, `cannot write ${showPath(rel)}: it is a folder, expected a file (EISDIR)`);
  if (kind === 'other') throw new ToolError(tool, `cannot write ${showPath(rel)}: it is not a regular file (a fifo, socket or device)`);
  return file;
}

/**
 * Replaces the resolved `file` with `content`: written to a new file beside it, then renamed
 * over it. The rename replaces the directory entry itself, so a symlink put in its place since
 * it was resolved, or a hard link shared with a file outside the workspace, is replaced, never
 * written through. An existing file keeps its mode; one we may not write is refused as before.
 * @throws ToolError naming `rel`
 */
async function replaceFile(tool: string, file: string, rel: string, content: string): Promise<void> {
  let mode = 0o666 & ~process.umask();
  try {
    const existing = await lstat(file);
    mode = existing.mode & 0o7777;
    await access(file, constants.W_OK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw fsFailure(tool, 'cannot write', rel, error);
  }
  const temp = path.join(path.dirname(file), `.loopdeck-${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.chmod(mode);
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined); // the failure below is the one to report
    throw fsFailure(tool, 'cannot write', rel, error);
  }
}

const TOOLS: Record<string, ToolFn> = {
  async list_files(args, ctx) {
    const { path: rel, max } = parseArgs('list_files', listArgs, args);
    const dir = confine('list_files', ctx.workspace, rel);
    const { files, more } = await listFiles(dir, realpathSync(ctx.workspace), max).catch((error: unknown) => {
      throw fsFailure('list_files', 'cannot list', rel, error);
    });
    const tail = more ? `\n[... more than ${max} files; list a subfolder]` : '';
    return { status: 'ok', output: bound(files.join('\n') + tail, ctx.outputLimit), exit_code: null };
  },
  async git_status(args, ctx) {
    parseArgs('git_status', statusArgs, args);
    await requireGit('git_status', ctx.workspace);
    const lines = statusLines(await git(ctx.workspace, ['status', '--porcelain=v1', '-b', '-z', '--untracked-files=all', '--', ':(top)', STATE_PATHSPEC]));
    return { status: 'ok', output: bound(lines.join('\n'), ctx.outputLimit), exit_code: null };
  },
  async git_diff(args, ctx) {
    const { path: rel, staged } = parseArgs('git_diff', diffArgs, args);
    await requireGit('git_diff', ctx.workspace);
    const only = rel ? ['--', `:(literal)${path.relative(realpathSync(ctx.workspace), confine('git_diff', ctx.workspace, rel)) || '.'}`] : [];
    const diff = await git(ctx.workspace, ['diff', ...(staged ? ['--cached'] : []), ...only]);
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
    const { killed, truncated, output_bytes, escaped } = result;
    const status = killed === 'timeout' ? 'timed_out' : killed ? 'killed' : result.exit_code === 0 ? 'ok' : 'failed';
    const notes = [killed ? `[loopdeck: killed the command (${killed === 'timeout' ? `after the ${ctx.shellTimeoutSeconds}s limit` : killed === 'budget' ? 'the wall-clock budget ran out' : `the run was ${killed === 'quit' ? 'quit' : 'aborted'}`})]` : '', escapedNote(escaped)];
    const extra = notes.filter((n) => n !== '').join('\n');
    const output = extra === '' ? result.output : `${result.output}${result.output === '' || result.output.endsWith('\n') ? '' : '\n'}${extra}`;
    return { status, output, exit_code: result.exit_code, ...(killed ? { killed } : {}), ...(truncated ? { truncated, output_bytes } : {}), ...(escaped ? { escaped } : {}) };
  },
  async read_file(args, ctx) {
    const { path: rel } = parseArgs('read_file', pathArgs, args);
    const file = await readableFile('read_file', ctx.workspace, rel);
    const content = await readFile(file, 'utf8').catch((error: unknown) => {
      throw fsFailure('read_file', 'cannot read', rel, error);
    });
    return { status: 'ok', output: bound(content, ctx.outputLimit), exit_code: null };
  },
  async write_file(args, ctx) {
    const { path: rel, content } = parseArgs('write_file', writeArgs, args);
    const file = await writableFile('write_file', ctx.workspace, rel, ctx.harness);
    await mkdir(path.dirname(file), { recursive: true }).catch((error: unknown) => {
      throw fsFailure('write_file', 'cannot create the folder of', rel, error);
    });
    await replaceFile('write_file', file, rel, content);
    return { status: 'ok', output: `wrote ${Buffer.byteLength(content)} bytes to ${rel}`, exit_code: null };
  },
  async edit(args, ctx) {
    const { path: rel, find, replace } = parseArgs('edit', editArgs, args);
    const file = await writableFile('edit', ctx.workspace, rel, ctx.harness);
    const content = await readFile(file, 'utf8').catch((error: unknown) => {
      throw fsFailure('edit', 'cannot read', rel, error);
    });
    const count = content.split(find).length - 1;
    if (count === 0) throw new ToolError('edit', `the text to find does not occur in ${rel}`);
    if (count > 1) throw new ToolError('edit', `the text to find occurs ${count} times in ${rel}; it must occur exactly once`);
    await replaceFile('edit', file, rel, content.replace(find, () => replace));
    return { status: 'ok', output: `edited ${rel}`, exit_code: null };
  },
};

/**
 * loopdeck's own files of a run, which the file tools never write: the run directory (its
 * log, reports and saved policy are what `resume` and `replay` trust), the config file the
 * run was started with, the scripted agent's transcript, and the programs of command hooks
 * that resolve to a file (code loopdeck runs on every tool call).
 */
export function harnessFiles(input: { runDir?: string; policy?: EnginePolicy }): HarnessPath[] {
  const files: HarnessPath[] = [];
  if (input.runDir) files.push({ path: path.resolve(input.runDir), what: 'the run directory of this run' });
  const policy = input.policy;
  if (!policy) return files;
  if (policy.file) files.push({ path: policy.file, what: 'the config file this run was started with' });
  if (policy.agent?.kind === 'scripted') files.push({ path: policy.agent.script, what: "the scripted agent's transcript" });
  for (const hook of policy.hooks) {
    if (typeof hook === 'string') continue;
    const program = resolveProgram(hook.command, policy.file ? path.dirname(policy.file) : process.cwd());
    if (program) files.push({ path: program, what: `the program of the hook ${JSON.stringify(hook.name)}` });
  }
  return files;
}

/** Names of the built-in tools. */
export const TOOL_NAMES = Object.keys(TOOLS);

/**
 * Why the built-in tools cannot run `call` at all, or `null` when they can try: an unknown
 * tool name, arguments its schema refuses (every problem, with its path), or a shell
 * command longer than `sh -c` can be given ({@link MAX_COMMAND_BYTES}). The engine
 * asks this before a call reaches approval, so the operator is never asked about a call that
 * could only fail; the agent is told instead.
 */
export function callProblem(call: ToolCall): string | null {
  if (!Object.hasOwn(TOOLS, call.name)) return `unknown tool (known: ${TOOL_NAMES.join(', ')})`;
  const schema = HARNESS_TOOL_ARGS[call.name as keyof typeof HARNESS_TOOL_ARGS];
  const parsed = schema.safeParse(call.args);
  if (!parsed.success) return badArguments(parsed.error.issues);
  const command: unknown = call.name === 'shell' ? (parsed.data as { command: string }).command : undefined;
  const bytes = typeof command === 'string' ? Buffer.byteLength(command) : 0;
  if (bytes > MAX_COMMAND_BYTES) {
    return `command is ${bytes} bytes; sh -c takes at most ${MAX_COMMAND_BYTES} (Linux's limit for one argument, MAX_ARG_STRLEN): write the script with write_file and run that file`;
  }
  return null;
}

/** The longest shell command `sh -c` can be given, in bytes: one argument of at most 32 pages (Linux's MAX_ARG_STRLEN, 131,072 bytes with its NUL). */
export const MAX_COMMAND_BYTES = 131_071;

/** The tools whose `path` argument names a file they write; the others' paths are read. */
const WRITES = new Set(['write_file', 'edit']);

/**
 * Why the built-in tools would refuse the path of `call` whatever the files hold, or `null`:
 * a NUL byte, a path or name too long, an absolute path, one that leads outside the
 * workspace (by `..` or a symlink), and for a write git's own files or loopdeck's own
 * (`ctx.harness`, any `.loopdeck` folder). The engine asks this, after {@link callProblem},
 * before a call reaches approval: the operator is never asked about a path the tool would
 * refuse, and the agent is told why. A missing file is not a problem of the path (the tool
 * says so when it runs); the tool checks the path again when it runs.
 */
export function pathProblem(call: ToolCall, ctx: Pick<ToolContext, 'workspace' | 'harness'>): string | null {
  const rel: unknown = call.args !== null && typeof call.args === 'object' ? call.args.path : undefined;
  if (typeof rel !== 'string' || !Object.hasOwn(TOOLS, call.name) || call.name === 'shell') return null;
  try {
    if (WRITES.has(call.name)) writeTarget(call.name, ctx.workspace, rel, ctx.harness);
    else confine(call.name, ctx.workspace, rel);
    return null;
  } catch (error) {
    if (error instanceof ToolError) return error.message.slice(error.tool.length + 2);
    throw error;
  }
}

/**
 * Runs one tool call in the workspace. This is the tools' boundary: whatever a tool throws
 * ends up as one {@link ToolError} (a failed call the engine records as `tool.error`), never
 * as an exception that ends the run; a file-system error is described by its errno code and
 * names the path the agent gave.
 * @throws ToolError for an unknown tool, bad arguments, a path outside the workspace, a
 *   write into git's own files or loopdeck's own (`ctx.harness`, any `.loopdeck` folder), a file-system error (missing, a folder, permission denied, ...),
 *   an edit whose text is absent or not unique, or a shell that cannot start
 */
export async function runTool(call: ToolCall, ctx: ToolContext): Promise<ToolOutcome> {
  const tool = Object.hasOwn(TOOLS, call.name) ? TOOLS[call.name] : undefined;
  if (!tool) throw new ToolError(call.name, `unknown tool (known: ${TOOL_NAMES.join(', ')})`);
  try {
    return await tool(call.args, ctx);
  } catch (error) {
    if (error instanceof ToolError) throw error;
    const rel: unknown = call.args !== null && typeof call.args === 'object' ? call.args.path : undefined;
    const on = typeof rel === 'string' ? ` on ${showPath(rel)}` : '';
    throw new ToolError(call.name, `failed${on}: ${fsReason(error)}`, { cause: error });
  }
}

/** Keeps the head and tail of `text` within `limit` characters, saying how much was dropped (secrets redacted first). */
const bound = (text: string, limit: number): string => boundText(text, limit);
