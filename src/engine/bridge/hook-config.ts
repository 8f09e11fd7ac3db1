/**
 * The per-run pre-tool hook configuration of a CLI agent (docs/design.md, "Approvals of CLI
 * agents"), written under the run directory and handed to the CLI on its command line or in
 * its environment; the user's own settings are never edited:
 *
 * - Claude Code: `--settings <run dir>/hooks/claude-settings.json` (additional settings; its
 *   `hooks.PreToolUse` runs the bridge for every tool, matcher `*`);
 * - Codex: `-c hooks.PreToolUse=[...]` (a config override of this invocation only);
 * - Gemini CLI: `GEMINI_CLI_SYSTEM_DEFAULTS_PATH=<run dir>/hooks/gemini-system-defaults.json`,
 *   a copy of the machine's system defaults (if any) with a `BeforeTool` hook added; Gemini
 *   CLI concatenates the hooks of all its settings layers, so the user's own hooks still run.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { shellQuote } from '../../text/shell-quote.js';
import type { BridgeCli } from './protocol.js';

/** What the command agent adds to its command: environment variables and words appended. */
export interface HookLaunch {
  env: Record<string, string>;
  /** Words appended to the command; they name the variables of `env`, so paths are never parsed by the shell. */
  append: string;
}

/** Environment variable holding the Claude Code settings file. */
export const CLAUDE_SETTINGS_ENV = 'LOOPDECK_HOOK_SETTINGS';
/** Environment variable holding the Codex config override. */
export const CODEX_CONFIG_ENV = 'LOOPDECK_HOOK_CONFIG';

const FORMAT_CLI: Record<string, BridgeCli> = { 'claude-stream-json': 'claude', 'codex-json': 'codex', 'gemini-stream-json': 'gemini' };

/**
 * The CLI whose hooks the bridge speaks for an agent: from `output` when it names a CLI's
 * format, else from the program name of the command's first word (`claude`, `codex`,
 * `gemini`, a path to one of them), else `null`.
 */
export function bridgeCliOf(agent: { command: string; output: string }): BridgeCli | null {
  const fromOutput = FORMAT_CLI[agent.output];
  if (fromOutput) return fromOutput;
  const first = agent.command.trim().split(/\s+/)[0] ?? '';
  const program = path.basename(first);
  return program === 'claude' || program === 'codex' || program === 'gemini' ? program : null;
}

/** A TOML basic string: JSON's escapes are TOML's, but for DEL, which TOML wants escaped too. */
function tomlString(text: string): string {
  return JSON.stringify(text).replace(/\x7f/g, '\\u007F');
}

/** The machine's Gemini CLI system defaults file (its variable, else the platform's path). */
function geminiDefaultsFile(): string {
  const given = process.env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH;
  if (given) return given;
  if (process.platform === 'darwin') return '/Library/Application Support/GeminiCli/system-defaults.json';
  if (process.platform === 'win32') return path.join(process.env.ProgramData ?? 'C:\\ProgramData', 'gemini-cli', 'system-defaults.json');
  return '/etc/gemini-cli/system-defaults.json';
}

/**
 * Writes the hook configuration of `cli` and says how to start the CLI with it.
 * @param hookCommand the shell command the hook runs (`loopdeck bridge ...`)
 * @param hookSeconds how long the CLI lets the hook run (longer than the bridge's own wait)
 * @returns the launch additions, or `{ notice }` when no per-run hook is possible without
 *   changing the user's settings (the run then goes parse-only)
 */
export function writeHookConfig(cli: BridgeCli, runDir: string, hookCommand: string, hookSeconds: number): HookLaunch | { notice: string } {
  const dir = path.join(runDir, 'hooks');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  switch (cli) {
    case 'claude': {
      const file = path.join(dir, 'claude-settings.json');
      const settings = { hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: hookCommand, timeout: hookSeconds }] }] } };
      writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
      return { env: { [CLAUDE_SETTINGS_ENV]: file }, append: `--settings "$${CLAUDE_SETTINGS_ENV}"` };
    }
    case 'codex': {
      const override = `hooks.PreToolUse=[{hooks=[{type="command",command=${tomlString(hookCommand)},timeout=${hookSeconds}}]}]`;
      writeFileSync(path.join(dir, 'codex-config-override.txt'), `${override}\n`, { mode: 0o600 });
      return { env: { [CODEX_CONFIG_ENV]: override }, append: `-c "$${CODEX_CONFIG_ENV}"` };
    }
    case 'gemini':
      return geminiDefaults(dir, hookCommand, hookSeconds);
  }
}

function geminiDefaults(dir: string, hookCommand: string, hookSeconds: number): HookLaunch | { notice: string } {
  const original = geminiDefaultsFile();
  let base: Record<string, unknown> = {};
  if (existsSync(original)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(original, 'utf8'));
    } catch (error) {
      return { notice: `Gemini CLI's system defaults ${original} are not plain JSON (${(error as Error).message}); loopdeck will not replace them, so the agent runs parse-only under its own approval mode` };
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return { notice: `Gemini CLI's system defaults ${original} are not a JSON object; the agent runs parse-only under its own approval mode` };
    }
    base = parsed as Record<string, unknown>;
  }
  const hooks = typeof base.hooks === 'object' && base.hooks !== null && !Array.isArray(base.hooks) ? (base.hooks as Record<string, unknown>) : {};
  const before = Array.isArray(hooks.BeforeTool) ? hooks.BeforeTool : [];
  const ours = { matcher: '.*', hooks: [{ type: 'command', name: 'loopdeck-bridge', command: hookCommand, timeout: hookSeconds * 1000 }] };
  const file = path.join(dir, 'gemini-system-defaults.json');
  writeFileSync(file, `${JSON.stringify({ ...base, hooks: { ...hooks, BeforeTool: [...before, ours] } }, null, 2)}\n`, { mode: 0o600 });
  return { env: { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: file }, append: '' };
}

/** The hook's command line: this node running loopdeck's `bridge` for the run, every word quoted. */
export function bridgeHookCommand(cliScript: string, cli: BridgeCli, run: string, socket: string, waitSeconds: number): string {
  return [process.execPath, cliScript, 'bridge', '--run', run, '--format', cli, '--socket', socket, '--timeout', String(waitSeconds)].map(shellQuote).join(' ');
}
