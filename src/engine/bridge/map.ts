/**
 * A CLI agent's tool call, as its pre-tool hook reports it, in loopdeck's terms
 * (docs/design.md, "Approvals of CLI agents"): shells become `shell` with the command, file
 * writes `write_file`, edits and patches `edit`, reads `read_file`, each with the path
 * relative to the workspace; any other tool keeps its own name and arguments. Then the
 * checks loopdeck's own file tools make: every path inside the workspace (links followed),
 * no write under `.git/`, into loopdeck's own files, or to a git configuration file through
 * a symlink of another name. Pure but for the file-system reads of those checks.
 */
import path from 'node:path';
import { describeError } from '../errors.js';
import { confine, gitConfigFile, gitInternalReason, harnessInternalReason, showPath, type HarnessPath } from '../workspace-path.js';
import type { BridgeCli } from './protocol.js';
import { shellQuote } from '../../text/shell-quote.js';

/** A call as loopdeck's rules judge it. */
export interface JudgedCall {
  name: string;
  args: Record<string, unknown>;
}

/** A CLI's call in loopdeck's terms. */
export interface MappedCall {
  /** What the approval prompt shows, `tool.ask` records and "always allow" stores. */
  call: JudgedCall;
  /** Every call the approval rules judge: `call`, and for a patch of several files one `edit` per file. */
  judged: JudgedCall[];
  /** The files the call reads or writes, as the CLI named them. */
  paths: Array<{ path: string; write: boolean }>;
}

const SHELL_TOOLS = new Set(['Bash', 'run_shell_command', 'shell', 'local_shell', 'exec_command', 'container.exec', 'unified_exec']);
const WRITE_TOOLS = new Set(['Write', 'write_file', 'create_file']);
const EDIT_TOOLS = new Set(['Edit', 'MultiEdit', 'replace', 'edit_file', 'NotebookEdit']);
const READ_TOOLS = new Set(['Read', 'read_file']);
const PATCH_TOOLS = new Set(['apply_patch']);
const PATH_KEYS = ['file_path', 'absolute_path', 'notebook_path', 'path'] as const;


/**
 * The script of a command line that only runs a shell on one word (`/bin/bash -lc 'npm test'`,
 * as Codex's JSON output shows a call whose hook got `npm test`), else the line as given.
 * The word must be quoted the POSIX way throughout (`'...'`, `\\'`, `"'"` and plain safe
 * characters); anything else on the line (a second word, `;`, `$(...)`) keeps it whole.
 */
export function shellScript(line: string): string {
  const head = /^(?:\/[\w/.-]*\/)?(?:ba|z|da)?sh -l?c /.exec(line);
  if (!head) return line;
  const word = line.slice(head[0].length);
  let script = '';
  for (let at = 0; at < word.length; ) {
    const part = /^(?:'([^']*)'|\\(')|"(')"|([A-Za-z0-9_./:=@%+,-]+))/.exec(word.slice(at));
    if (!part) return line;
    script += part[1] ?? part[2] ?? part[3] ?? part[4]!;
    at += part[0].length;
  }
  return word === '' ? line : script;
}

/** The command of a shell tool's input: a string, or an argv (`["bash","-lc","..."]` gives the script). */
function commandOf(input: Record<string, unknown>): string | null {
  const command = input.command ?? input.cmd;
  if (typeof command === 'string') return command;
  if (!Array.isArray(command) || command.length === 0 || !command.every((w) => typeof w === 'string')) return null;
  const argv = command as string[];
  if (argv.length === 3 && /^(?:\/[\w/]*\/)?(?:ba|z|da)?sh$/.test(argv[0]!) && /^-l?c$/.test(argv[1]!)) return argv[2]!;
  return argv.map(shellQuote).join(' ');
}

function filePathOf(input: Record<string, unknown>): string | null {
  for (const key of PATH_KEYS) {
    const value = input[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return null;
}

/** The files a Codex patch names (`*** Add File:`, `*** Update File:`, `*** Delete File:`, `*** Move to:`). */
export function patchPaths(patch: string): string[] {
  const found: string[] = [];
  for (const line of patch.split('\n')) {
    const match = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$/.exec(line);
    if (match && !found.includes(match[1]!)) found.push(match[1]!);
  }
  return found;
}

function patchTextOf(input: Record<string, unknown>): string | null {
  for (const key of ['patch', 'input', 'command']) {
    const value = input[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value)) {
      const text = value.find((w): w is string => typeof w === 'string' && w.includes('*** Begin Patch'));
      if (text) return text;
    }
  }
  return null;
}

/**
 * `tool_name` and `tool_input` of a CLI's hook in loopdeck's terms, or why they cannot be
 * (a shell without a command, a file tool without a path, a patch that names no file).
 * `cli` is kept for tools whose meaning differs between CLIs (none yet).
 */
export function mapAgentCall(_cli: BridgeCli, name: string, input: Record<string, unknown>): { ok: true; mapped: MappedCall } | { ok: false; problem: string } {
  const one = (call: JudgedCall, paths: MappedCall['paths'] = []) => ({ ok: true as const, mapped: { call, judged: [call], paths } });
  if (SHELL_TOOLS.has(name)) {
    const command = commandOf(input);
    if (command === null || command.trim() === '') return { ok: false, problem: `${name}: no command in its input` };
    return one({ name: 'shell', args: { command } });
  }
  if (PATCH_TOOLS.has(name)) {
    const patch = patchTextOf(input);
    const files = patch === null ? [] : patchPaths(patch);
    if (patch === null || files.length === 0) return { ok: false, problem: `${name}: a patch that names no file` };
    const call: JudgedCall = { name: 'edit', args: files.length === 1 ? { path: files[0], patch } : { paths: files, patch } };
    const judged = files.length === 1 ? [call] : [call, ...files.map((file) => ({ name: 'edit', args: { path: file } }))];
    return { ok: true, mapped: { call, judged, paths: files.map((file) => ({ path: file, write: true })) } };
  }
  const isWrite = WRITE_TOOLS.has(name);
  const isEdit = EDIT_TOOLS.has(name);
  if (isWrite || isEdit || READ_TOOLS.has(name)) {
    const file = filePathOf(input);
    if (file === null) return { ok: false, problem: `${name}: no file path in its input` };
    const rest = Object.fromEntries(Object.entries(input).filter(([key]) => !(PATH_KEYS as readonly string[]).includes(key)));
    if (isWrite) return one({ name: 'write_file', args: { path: file, ...rest } }, [{ path: file, write: true }]);
    if (isEdit) {
      const { old_string, new_string, ...others } = rest;
      const edit = typeof old_string === 'string' && typeof new_string === 'string' ? { find: old_string, replace: new_string, ...others } : rest;
      return one({ name: 'edit', args: { path: file, ...edit } }, [{ path: file, write: true }]);
    }
    return one({ name: 'read_file', args: { path: file } }, [{ path: file, write: false }]);
  }
  return one({ name, args: { ...input } });
}

/**
 * `file` relative to the workspace, or `null` when it names a place outside it. An absolute
 * path is taken relative to the workspace as given and as resolved (`/tmp` may be a link).
 */
function insideRelative(workspace: string, real: string, file: string): string | null {
  if (!path.isAbsolute(file)) return file;
  for (const root of [workspace, real]) {
    const rel = path.relative(root, file);
    if (rel === '') return '.';
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/');
  }
  return null;
}

/**
 * Why loopdeck refuses `mapped` before anyone is asked, or `null`: a path outside the
 * workspace (through `..`, an absolute path or a symlink), a write into git's own files
 * (`.git` in any spelling, the folder a `.git` file points to), into loopdeck's own state
 * (`harness`, any `.loopdeck`), or to a git configuration file through a link of another name.
 * Paths shown in the prompt are made relative to the workspace as a side effect.
 */
export function bridgedCallProblem(mapped: MappedCall, workspace: string, real: string, harness: readonly HarnessPath[]): string | null {
  for (const entry of mapped.paths) {
    const rel = insideRelative(workspace, real, entry.path);
    if (rel === null) return `path ${showPath(entry.path)} is outside the workspace`;
    let resolved: string;
    try {
      resolved = confine(mapped.call.name, workspace, rel);
    } catch (error) {
      return describeError(error);
    }
    if (!entry.write) continue;
    const internal = gitInternalReason(workspace, resolved) ?? harnessInternalReason(workspace, resolved, harness);
    if (internal) return `will not let the agent write ${showPath(rel)}: ${internal}`;
    const reached = gitConfigFile(path.basename(resolved));
    const named = rel.split('/').filter((name) => name !== '' && name !== '.').at(-1) ?? '';
    if (reached && gitConfigFile(named) === null) return `will not let the agent write ${showPath(rel)}: it is a symlink to git's ${reached}`;
  }
  return null;
}

/** `mapped` with the paths of its calls made relative to the workspace (what the prompt and the rules see). */
export function withRelativePaths(mapped: MappedCall, workspace: string, real: string): MappedCall {
  const relative = (call: JudgedCall): JudgedCall => {
    const file = call.args.path;
    if (typeof file !== 'string') return call;
    return { name: call.name, args: { ...call.args, path: insideRelative(workspace, real, file) ?? file } };
  };
  return { ...mapped, call: relative(mapped.call), judged: mapped.judged.map(relative) };
}
