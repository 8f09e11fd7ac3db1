import { closeSync, constants as fsConstants, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { formatBudget } from './engine/budget-units.js';
import { ConfigErrors, describeError, LoopdeckError, UnreadableConfigError } from './engine/errors.js';
import type { CheckpointInput } from './engine/types.js';
import type { LoopPolicy } from './engine/policy.js';
import type { PreparedRun } from './launch.js';
import type { AttachedDesk } from './engine/bridge/attached.js';
import type { AnswerHandler } from './engine/bridge/server.js';
import type { ConsoleRun } from './ui/run-console.js';
import { CliError, EXIT, exitCodeOfRun, type ExitCode } from './exit-codes.js';
import { printError, printJson, printLine, printNotes, printWarnings, writeJsonChunks } from './text/print.js';
import { sanitize, shownName } from './text/sanitize.js';
import { showOutline, type OutlineInfo } from './ui/outline.js';
import { outlineOfConfig, outlineOfLog } from './ui/outline-source.js';
import { newSessionId } from './run-id.js';
import { consoleTerminal, noConsoleReason } from './console-terminal.js';
import { selfCommand } from './continue-command.js';
import { importLive } from './ui/live-import.js';
import { isBlank } from './engine/blank.js';

/** The log file of a run, in its run directory. */
const LOG_FILE = 'events.jsonl';

const isFile = (p: string) => statSync(p, { throwIfNoEntry: false })?.isFile() ?? false;
const isDirectory = (p: string) => statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;

/**
 * Stops the command when the log `file` (the one named, or the events.jsonl of the folder
 * `given`) cannot be read, saying why in words: `<file>: no such file`, `<dir> is a folder
 * without an events.jsonl (a run folder holds one)`, `<file>: permission denied`, `<file>: not a regular file: ...` (a named pipe or a device, which may never end).
 */
async function checkReadable(given: string, file: string): Promise<void> {
  const { notALogFile, unreadableLog } = await import('./engine/log.js');
  let fd: number;
  try {
    // Without waiting: a named pipe no one writes to would block the open.
    fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  } catch (error) {
    if (file !== given && (error as NodeJS.ErrnoException).code === 'ENOENT') fail(`${shownName(given)} is a folder without an ${LOG_FILE} (a run folder holds one)`);
    fail(`${shownName(file)}: ${unreadableLog(error)}`);
  }
  const why = notALogFile(fd);
  closeSync(fd);
  if (why !== null) fail(`${shownName(file)}: ${why}`);
}

// Commands load what they use when they run: `--help`, `--version` and `replay` stay fast.

/** Stops the command: cli.tsx prints `loopdeck: <message>` (sanitized) and exits with `code`. */
function fail(message: string, code: ExitCode = EXIT.usage): never {
  throw new CliError(message, code);
}

/** The first line of a config error report: `cannot read config` when every error is a file that could not be read, else `invalid config`. */
function configHeading(error: ConfigErrors): string {
  return error.errors.every((e) => e instanceof UnreadableConfigError) ? 'cannot read config' : 'invalid config';
}

/**
 * The result of `work`, or exit 1 with the errors when it throws ConfigErrors: headed
 * `cannot read config` when no file could be read as text (missing, a folder, too large,
 * not UTF-8: {@link UnreadableConfigError}), else `invalid config`.
 */
async function configOrExit<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ConfigErrors) fail(`${configHeading(error)}\n${error.message}`);
    throw error;
  }
}

/** loop.yaml loaded, or exit 1 with its errors; `otherFile` says how this command names another file. */
async function policyOrExit(file: string, otherFile?: (self: string) => string): Promise<LoopPolicy> {
  const [{ loadPolicy }, { selfCommand }] = await Promise.all([import('./engine/policy.js'), import('./continue-command.js')]);
  const self = selfCommand();
  return configOrExit(async () => loadPolicy(file, { self, ...(otherFile ? { otherFile: otherFile(self) } : {}) }));
}

/** The help's width: one column less than the terminal it is shown in (a row that fills the last column wraps in some terminals); 88 columns elsewhere (a pipe, a file). */
const HELP_WIDTH = process.stdout.isTTY && process.stdout.columns > 0 ? Math.max(40, process.stdout.columns - 1) : 88;

/** `text` in rows of at most `width` characters, broken at spaces (a longer word stays whole). */
function wrapPlain(text: string, width: number, indent = ''): string[] {
  const rows: string[] = [];
  let row = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (row !== '' && row.length + 1 + word.length > width) {
      rows.push(row);
      row = indent + word;
    } else row = row === '' ? word : `${row} ${word}`;
  }
  if (row !== '') rows.push(row);
  return rows;
}

/**
 * The text after a command's help: `paragraphs` wrapped to the help's width, then
 * `examples`, each the words after `loopdeck`, written with the command this loopdeck was
 * started as (`npx loopdeck`, `node …/cli.js`) so that each runs as printed; an example
 * wider than the help goes on over rows ending in ` \`, as a shell reads it. `{self}` in a
 * paragraph is that command too.
 */
function helpAfter(paragraphs: readonly string[], examples: readonly string[]): () => string {
  return () => {
    const self = selfCommand();
    const text = paragraphs.map((p) => wrapPlain(p.replaceAll('{self}', self), HELP_WIDTH).join('\n'));
    const lines = examples.map((example) => {
      const words = example.startsWith('!') ? example.slice(1) : `${self} ${example}`;
      return wrapPlain(words, HELP_WIDTH - 4, '    ').map((row, i, all) => `  ${row}${i < all.length - 1 ? ' \\' : ''}`).join('\n');
    });
    return `\n${[...text, `Examples:\n${lines.join('\n')}`].join('\n\n')}`;
  };
}

/**
 * The command line: `run`, `resume`, `runs`, `replay`, `check`, `validate`, `import`, `audit`, `watch`, `attach`. The README's CLI
 * reference is generated from these same definitions (`npm run docs`).
 */
export function buildProgram(): Command {
  const program = new Command();
  program
    .name('loopdeck')
    .description('A terminal console for supervising goal-directed AI agent loops.')
    .version('0.1.0')
    .showHelpAfterError()
    .configureHelp({ helpWidth: HELP_WIDTH, minWidthToWrap: 12 })
    .configureOutput({ outputError: (text, write) => write(sanitize(text)) })
    .exitOverride((error) => process.exit(error.exitCode === 0 ? EXIT.goalMet : EXIT.usage));

  program
    .command('init')
    .description("write a first loop.yaml for the project in the current folder (never over an existing file)")
    .argument('[file]', 'the file to write (its workspace.path points to the current folder)', 'loop.yaml')
    .action(async (file: string) => {
      const { initReport, writeInitConfig } = await import('./init.js');
      let result;
      try {
        result = writeInitConfig(process.cwd(), file);
      } catch (error) {
        fail(describeError(error));
      }
      // What it found quotes the project's files (package.json's scripts): printed sanitized.
      printLine(initReport(result, file).join('\n'));
    });

  program
    .command('run')
    .description('run the loop of a loop.yaml in the console (or headless)')
    .option('-c, --config <file>', 'the loop contract', 'loop.yaml')
    .option('--headless', 'no console: stream events as JSONL on stdout (also when stdout or stdin is not a terminal, or TERM=dumb)')
    .addOption(new Option('--approve <which>', 'headless answer to tool-call prompts (attached: wait approval.timeout for `loopdeck attach`, then deny)').choices(['all', 'none', 'attached']).default('none'))
    .addOption(new Option('--on-pause <action>', 'headless answer to pauses').choices(['continue', 'stop']).default('stop'))
    .option('--goal <objective>', "start with this objective instead of loop.yaml's goal.objective")
    .option('--constraint <text>', 'add a constraint to the goal at start (repeatable)', (value: string, all: string[]) => [...all, value], [] as string[])
    .option('--watch-config', 'reload loop.yaml whenever it changes (never a loop.yaml inside the workspace)')
    .option('--watch-config-gates', 'headless with --watch-config: apply changes of approval rules and hooks without a key (else they are refused)')
    // A file named as an argument (`run loop.yaml`) gets a hint on how to name it, not only "too many arguments".
    .allowExcessArguments(true)
    .action(async (options: { config: string; headless?: boolean; approve: 'all' | 'none' | 'attached'; onPause: 'continue' | 'stop'; goal?: string; constraint: string[]; watchConfig?: boolean; watchConfigGates?: boolean }, command: Command) => {
      if (command.args.length > 0) {
        const { selfCommand, shortPath } = await import('./continue-command.js');
        const [first] = command.args;
        const more = command.args.length > 1 ? ` (and ${command.args.length - 1} more)` : '';
        fail(`run takes no arguments, found ${JSON.stringify(first)}${more}; name the loop.yaml with -c: ${selfCommand()} run -c ${shortPath(first!)}`);
      }
      if (options.goal !== undefined && isBlank(options.goal)) fail('--goal needs a non-empty objective (something visible, not only spaces or invisible characters)');
      if (options.constraint.some(isBlank)) fail('--constraint needs text (something visible, not only spaces or invisible characters)');
      const desk = await attachedDesk(options);
      // Made once, before the outline shows it: the run is prepared with this id.
      const id = newSessionId();
      await supervise(async (step) => {
        step(`loading ${options.config}…`);
        const [{ loadPolicy }, { selfCommand }] = await Promise.all([import('./engine/policy.js'), import('./continue-command.js')]);
        const loaded = loadPolicy(options.config, { self: selfCommand() });
        const policy: LoopPolicy = {
          ...loaded,
          goal: {
            ...loaded.goal,
            ...(options.goal !== undefined ? { objective: options.goal.trim() } : {}),
            constraints: [...loaded.goal.constraints, ...options.constraint.map((c) => c.trim())],
          },
        };
        step(`preparing the workspace ${policy.workspace.path}…`);
        const { prepareRun } = await import('./launch.js');
        // Errors and warnings name the loop.yaml as it was given, as the loader's errors do.
        const prepared = await prepareRun(policy, { cwd: process.cwd(), id, configShownAs: options.config, ...answersOf(desk) });
        const { preflightWarnings, workspaceWarnings } = await import('./preflight.js');
        const { inPlace, unversioned } = await workspaceWarnings(policy, options.config);
        const warnings: string[] = [...preflightWarnings(policy, options.config), ...[inPlace, unversioned].filter((w): w is string => w !== null)];
        if (options.watchConfig) {
          const { watchRun } = await import('./config-watch.js');
          const say = (line: string) => printError(`loopdeck: ${sanitize(line, { oneLine: true })}`);
          warnings.push(...watchRun(prepared, { headless: !interactiveRun(options), gates: options.watchConfigGates === true, say }));
        }
        // In place over uncommitted work, the run waits for the operator's word in the console.
        return { prepared, start: () => prepared.session.run(prepared.goal), warnings, ...(inPlace ? { confirm: [inPlace] } : {}) };
      }, { ...options, desk, outline: () => outlineOfConfig(options.config, options.goal, id) }, false);
    });

  interface SuperviseOptions {
    headless?: boolean;
    approve: 'all' | 'none' | 'attached';
    onPause: 'continue' | 'stop';
    yes?: boolean;
    /** `--approve attached` of a headless run: where an attached console's answers arrive. */
    desk?: AttachedDesk | null;
    /** What the console's outline shows while React and Ink load (read cheaply; console only). */
    outline?: () => OutlineInfo;
  }

  /** The desk of `--approve attached` for a headless run, else `null` (the console answers itself). */
  async function attachedDesk(options: { headless?: boolean; approve: string }): Promise<AttachedDesk | null> {
    if (options.approve !== 'attached' || interactiveRun(options)) return null;
    const { AttachedDesk } = await import('./engine/bridge/attached.js');
    return new AttachedDesk((line) => printError(`loopdeck: ${sanitize(line, { oneLine: true })}`));
  }

  /** The socket's answer handler a desk gives a prepared run. */
  function answersOf(desk: AttachedDesk | null): { answers?: AnswerHandler } {
    return desk ? { answers: (message) => desk.receive(message) } : {};
  }

  /**
   * Prepares a run and runs it to the end: in the console (which is drawn first and shows
   * the preparation), or headless with JSONL on stdout. Config errors exit 1 with the
   * file, the path in it and what was expected.
   */
  async function supervise(prepare: (step: (text: string) => void) => Promise<ConsoleRun>, options: SuperviseOptions, resuming: boolean): Promise<void> {
    const interactive = interactiveRun(options);
    if (!interactive) {
      if (!options.headless) printError(`loopdeck: ${noConsoleReason()}; running headless`);
      const { prepared, start, warnings = [] } = await configOrExit(() => prepare(() => undefined));
      printWarnings(warnings);
      const { builtinGatesWarning } = await import('./hooks/index.js');
      // On resume the policy comes from the run's policy.json, not from any loop.yaml.
      const gates = builtinGatesWarning(prepared.policy, resuming ? path.join(prepared.runDir, 'policy.json') : prepared.policy.file);
      if (gates) printError(`loopdeck: ${gates}`);
      // Say now what happens to the calls the approval rules ask about, as --approve decides.
      const { approvalModeLine, attachedAnswerer, driveHeadless } = await import('./headless.js');
      const { attachCommand } = await import('./continue-command.js');
      printError(`loopdeck: ${approvalModeLine(options.approve, attachCommand(prepared.runDir), resuming)}`);
      if (resuming && !options.yes) {
        fail(`resuming headless needs --yes; the run stands at: ${summary(prepared)}`);
      }
      const unsubscribe = prepared.session.subscribe((event) => {
        printJson(event);
        // Processes a crashed run left behind were killed: said on stderr too, where a person reads.
        if (event.type === 'process.reaped') printError(`loopdeck: ${sanitize(event.data.note, { oneLine: true })}`);
      });
      process.stdout.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE') throw error;
        // The reader went away (e.g. `| head`): stop streaming and stop the run at the next safe point.
        unsubscribe();
        printError('loopdeck: stdout was closed; stopping the run at the next safe point (the log is kept)');
        prepared.session.stop({ abort: false, why: 'stdout was closed (its reader went away)' });
      });
      const headlessPolicy = { approve: options.approve === 'all' ? ('all' as const) : ('none' as const), onPause: options.onPause };
      const ended = await driveHeadless(start(), headlessPolicy, options.desk ? attachedAnswerer(prepared.session, options.desk, headlessPolicy) : undefined).finally(() => options.desk?.dispose());
      await prepared.dispose();
      prepared.log.close();
      const { continueCommand, whereLine } = await import('./continue-command.js');
      const where = whereLine(prepared.log.file, prepared.workspace);
      if (ended.outcome === null) {
        // Resuming without a terminal asks for --yes; the same answers as this run, said again.
        const headless = `${continueCommand(prepared.runDir)} --headless --yes${options.approve === 'none' ? '' : ` --approve ${options.approve}`}${options.onPause === 'stop' ? '' : ` --on-pause ${options.onPause}`}`;
        printError(`loopdeck: interrupted (${ended.signal}): the run stopped where it was; the log is kept.\n${where}\ncontinue with:\n${continueCommand(prepared.runDir)}\nor, without a terminal, as this run went:\n${headless}`);
        process.exitCode = ended.code;
        return;
      }
      // The summary may quote the agent (its final claim) or a server: kept to one line.
      const said = sanitize(ended.outcome.summary, { oneLine: true });
      const { failedNote, restoreNote } = await import('./continue-command.js');
      printError(`loopdeck: ${ended.outcome.reason}: ${said}\n${where}${restoreNote(prepared.session.snapshot.abort)}${failedNote(ended.outcome.reason)}`);
      process.exitCode = exitCodeOfRun(ended.outcome);
      return;
    }
    // The frame's outline first, with plain writes: loading React and Ink takes a while.
    const outline = options.outline?.();
    if (outline) await showOutline(outline);
    const [{ runConsole }, { continueCommand }] = await Promise.all([importLive(() => import('./ui/run-console.js')), import('./continue-command.js')]);
    // The console's first frame keeps what the outline showed until the run's session.start.
    const result = await configOrExit(() => runConsole(prepare, { confirmResume: resuming, resumeCommand: continueCommand, ...(outline ? { preparing: outline } : {}) }));
    // A child the run could not stop in time (a hook, an observer) goes with the console.
    const { killLiveChildren } = await import('./engine/children.js');
    killLiveChildren();
    await result.prepared.dispose();
    result.prepared.log.close();
    printWarnings(result.warnings);
    printLine(result.message);
    process.exitCode = exitCodeOfRun(result.outcome ?? null);
  }

  /** Whether a run gets the console: asked for, with a terminal on stdin and stdout. */
  function interactiveRun(options: { headless?: boolean }): boolean {
    return !options.headless && consoleTerminal();
  }

  /** One line on where a run stands: goal, budget used, last checkpoint. */
  function summary(prepared: PreparedRun): string {
    const s = prepared.session.snapshot;
    const cp = s.checkpoints[s.checkpoints.length - 1];
    return [
      `goal "${sanitize(s.goal?.objective ?? '', { oneLine: true })}"`,
      `state ${s.machine.state}`,
      `turns ${formatBudget('turns', s.usage.turns)}, tool calls ${formatBudget('tool_calls', s.usage.tool_calls)}, tokens ${formatBudget('tokens', s.usage.tokens)}, ${formatBudget('cost_usd', s.usage.cost_usd)}`,
      cp ? `last checkpoint ${cp.status} (counter ${cp.counter}/${cp.threshold})` : 'no checkpoint yet',
    ].join('; ');
  }

  program
    .command('resume')
    .description('continue a run from its log (.loopdeck/runs/<session>)')
    .argument('<run>', 'the run directory holding events.jsonl and policy.json, or its events.jsonl')
    .option('--headless', 'no console: stream events as JSONL on stdout')
    .option('-y, --yes', 'headless: resume without asking')
    .addOption(new Option('--approve <which>', 'headless answer to tool-call prompts (attached: wait approval.timeout for `loopdeck attach`, then deny)').choices(['all', 'none', 'attached']).default('none'))
    .addOption(new Option('--on-pause <action>', 'headless answer to pauses').choices(['continue', 'stop']).default('stop'))
    .action(async (run: string, options: SuperviseOptions) => {
      const runDir = path.basename(run) === LOG_FILE && isFile(run) ? path.dirname(run) : run;
      const desk = await attachedDesk(options);
      await supervise(async (step) => {
        step(`reading ${path.join(runDir, 'events.jsonl')}…`);
        const { prepareResume } = await import('./launch.js');
        const prepared = prepareResume(runDir, answersOf(desk));
        const done = prepared.session.snapshot.done;
        if (done) throw new LoopdeckError(`${runDir}: the run is over (${done.reason}); nothing to resume`);
        return { prepared, start: () => prepared.session.resume(), warnings: prepared.warnings };
      }, { ...options, desk, outline: () => outlineOfLog(path.join(runDir, LOG_FILE)) }, true);
    });

  program
    .command('runs')
    .description('list the runs recorded here (.loopdeck/runs), newest first, with their workspace copies; --prune removes old copies')
    .argument('[folder]', 'the folder loopdeck was started in (default: the current one)')
    .option('--json', 'one JSON object per run (times ISO 8601 UTC, sizes in bytes)')
    .option('--prune', 'remove the workspace copies of runs that ended more than --older-than ago, after asking; never a copy of a run that is running or resumable, or that holds a stash')
    .option('--older-than <age>', 'with --prune: how long ago a run must have ended (7d, 12h, 90m, 0s; default 7d); without it: list only runs at least that old (AGE)')
    .option('-y, --yes', 'with --prune: remove without asking (needed without a terminal)')
    .addHelpText(
      'after',
      helpAfter(
        [
          "A run is running (its process is alive), resumable (not ended: `{self} resume <run>` continues it) or ended with its reason. `log damaged` after it: its log has lines the reader passed over (a note under the table counts them; `{self} replay <run>` names each); `log unreadable`: no event in its log can be read. --prune leaves every log and report in place, records in the run's folder that its copy was pruned, and exits 2 when it would need to ask but there is no terminal (add --yes).",
        ],
        ['runs', 'runs --json', 'runs --older-than 30d', 'runs --prune', 'runs --prune --older-than 30d --yes'],
      ),
    )
    .action(async (folder: string | undefined, options: { json?: boolean; prune?: boolean; olderThan?: string; yes?: boolean }) => {
      const { runsCommand } = await import('./runs-cli.js');
      await runsCommand(path.resolve(folder ?? '.'), options);
    });

  program
    .command('validate')
    .description('print the effective config of a loop.yaml, or its errors')
    .argument('[file]', 'the loop contract (default: loop.yaml)')
    .option('-c, --config <file>', 'the loop contract, as `run --config` names it')
    .action(async (positional: string | undefined, options: { config?: string }) => {
      if (positional !== undefined && options.config !== undefined && positional !== options.config) {
        throw new CliError(`validate: two files named (${shownName(positional)} and --config ${shownName(options.config)}); name one`);
      }
      const file = positional ?? options.config ?? 'loop.yaml';
      const policy = await policyOrExit(file, (self) => `its path: ${self} validate <file>`);
      // Everything `run` checks before it starts, every error at once, and every warning with them.
      const { assertPreflight, preflightWarnings, workspaceWarnings } = await import('./preflight.js');
      // Named as given (relative stays relative), as the loader's own errors name it.
      const { inPlace, unversioned } = await workspaceWarnings(policy, file);
      for (const warning of [...preflightWarnings(policy, file), ...[inPlace, unversioned].filter((w): w is string => w !== null)]) printError(`loopdeck: warning: ${warning}`);
      // Where this folder would hold the run's folder, as `run` started here would write it.
      await configOrExit(async () => assertPreflight(policy, file, process.cwd()));
      const { builtinGatesWarning } = await import('./hooks/index.js');
      const gates = builtinGatesWarning(policy);
      if (gates) printError(`loopdeck: ${gates}`);
      // In loop.yaml's own keys and units: the text read back as a loop.yaml gives the same policy.
      const { loopYamlForm } = await import('./engine/saved-policy.js');
      printJson(loopYamlForm(policy), 2);
    });

  async function readCheckpoints(dir: string): Promise<Array<{ file: string; input: CheckpointInput }>> {
    const { loadCheckpointFile: loadCheckpoint } = await import('./engine/checkpoint-file.js');
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith('.json')).sort();
    } catch (error) {
      fail(`cannot read ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    if (names.length === 0) fail(`${dir}: no checkpoint .json files`);
    return names.map((name) => {
      try {
        return { file: name, input: loadCheckpoint(path.join(dir, name)) };
      } catch (error) {
        if (error instanceof ConfigErrors) fail(`invalid checkpoint\n${error.message}`);
        throw error;
      }
    });
  }

  program
    .command('check')
    .description('evaluate a folder of checkpoint JSON files in file-name order, one line each')
    .argument('<dir>', 'folder of checkpoint .json files')
    .option('-c, --config <file>', 'the loop contract whose progress and stagnation rules apply', 'loop.yaml')
    .option('--json', 'one JSON object per line')
    .action(async (dir: string, options: { config: string; json?: boolean }) => {
      const { loadCheckContract, checkSignalsMeasured } = await import('./engine/check-contract.js');
      const progress = await configOrExit(async () => loadCheckContract(options.config));
      const files = await readCheckpoints(dir);
      await configOrExit(async () => checkSignalsMeasured(progress, files.map((f) => f.input), options.config));
      const { evaluateAll } = await import('./engine/checkpoint.js');
      const { explainCheckpoint } = await import('./engine/checkpoint-explain.js');
      const records = evaluateAll(files.map((f) => f.input), progress);
      records.forEach((r, i) => {
        const row = {
          file: files[i]!.file,
          status: r.status,
          counter: r.counter,
          observed_progress: r.observed_progress,
          claimed_progress: r.claimed_progress,
          stagnation_detected: r.stagnation_detected,
          rule: explainCheckpoint(r),
          ...(r.unknown_why !== undefined ? { unknown_why: r.unknown_why } : {}),
        };
        if (options.json) printJson(row);
        else {
          const file = sanitize(row.file, { oneLine: true });
          printLine(`${file}  ${row.status}${row.stagnation_detected ? ' STAGNATION_DETECTED' : ''}  counter=${row.counter}/${r.threshold}  observed_progress=${row.observed_progress}  claimed_progress=${row.claimed_progress}`);
        }
      });
    });

  program
    .command('import')
    .description('turn a finished CLI agent transcript into a run log that replay shows')
    .argument('<file>', 'Claude Code stream-json or session file, Codex exec --json, Gemini CLI stream-json, or a mini-SWE-agent .traj.json')
    .option('-o, --out <dir>', 'the run directory to write (default: <file name>.loopdeck)')
    .action(async (file: string, options: { out?: string }) => {
      const { importTranscript } = await import('./audit-cli.js');
      printLine(`wrote ${sanitize(importTranscript(file, options.out, LOG_FILE), { oneLine: true })}`);
    });

  program
    .command('audit')
    .description('show where the budget, the repetition guard and stagnation would have stopped finished sessions')
    .argument('<target>', 'a transcript (as for import), or a folder of them')
    .option('-c, --config <file>', "a loop contract whose budget, repetition and stagnation settings apply (default: loopdeck's defaults)")
    .option('--json', 'one JSON object per line')
    .action(async (target: string, options: { config?: string; json?: boolean }) => {
      const { auditCommand, auditOptionsOf, defaultAuditPolicy } = await import('./audit-cli.js');
      const policy = options.config ? await policyOrExit(options.config) : defaultAuditPolicy();
      auditCommand(target, auditOptionsOf(policy), options.json === true);
    });

  program
    .command('watch')
    .description('follow a CLI agent session another program is writing: timeline, tool calls, budget, alerts (read-only)')
    .argument('[file]', 'a Claude Code session file, a Codex rollout file, or a saved --json / stream-json output; a folder lists its sessions')
    .option('-c, --config <file>', "a loop contract whose budget, repetition guard, observers and progress rules apply (default: no budget limits, the repetition guard's defaults)")
    .option('--workspace <path>', "the watched agent's working folder: with the config's observe and progress, checkpoints of observed progress are taken there")
    .option('--since <time>', 'pick among sessions modified after this time: 90m, 2h, 3d back from now, or a date (2026-12-01T08:00)')
    .option('--latest', 'watch the newest session file (under the folder given, else ~/.claude/projects and ~/.codex/sessions)')
    .option('--headless', 'no console: one line per alert on stdout, notices on stderr, until Ctrl+C')
    .addHelpText(
      'after',
      helpAfter(
        ['loopdeck cannot pause or stop a program it does not run: an alert (repetition, stagnation, a budget limit reached) rings the terminal bell and is listed in the console.'],
        [
          'watch --latest',
          'watch ~/.claude/projects/my-app/1f0c2b9e.jsonl --config loop.yaml',
          'watch ~/.codex/sessions --since 2h --latest --workspace ~/src/my-app -c loop.yaml',
          '!claude -p "fix the tests" --output-format stream-json --verbose > run.jsonl &',
          'watch run.jsonl',
        ],
      ),
    )
    .action(async (file: string | undefined, options: { config?: string; workspace?: string; since?: string; latest?: boolean; headless?: boolean }) => {
      // Without --config no budget limits apply (docs/watch.md): nobody set any for the watched session.
      const policy = options.config ? await policyOrExit(options.config) : null;
      const { watchCommand } = await import('./watch/command.js');
      await watchCommand(file, options, policy);
    });

  program
    .command('attach')
    .description('follow a loopdeck run started headless elsewhere, in the console: read-only, or answering its prompts when it runs with --approve attached')
    .argument('<run>', 'the run directory (.loopdeck/runs/<session>), or its events.jsonl')
    .option('--headless', 'no console: one line per alert on stdout, notices on stderr, until the run ends or Ctrl+C')
    .action(async (run: string, options: { headless?: boolean }) => {
      const { attachCommand } = await import('./watch/command.js');
      await attachCommand(run, options);
    });

  program
    .command('bridge')
    .description("answer a CLI agent's pre-tool hook through the running loopdeck of a run (loopdeck configures the hook itself)")
    .requiredOption('--run <id>', 'the run whose socket is asked')
    .addOption(new Option('--format <cli>', "the hook's input and output format").choices(['claude', 'codex', 'gemini']).makeOptionMandatory())
    .option('--socket <path>', 'the run\'s socket (default: $LOOPDECK_BRIDGE_SOCKET)')
    .option('--timeout <seconds>', 'seconds to wait for the decision before denying', '600')
    // A hook that exits 1 is a failed hook, which Claude Code and Gemini CLI let pass: a
    // command line the bridge cannot take blocks the call (exit 2, as every CLI reads it).
    .exitOverride((error) => {
      if (error.exitCode !== 0) process.stderr.write('loopdeck bridge: the call is denied (this hook cannot run as configured)\n');
      process.exit(error.exitCode === 0 ? EXIT.goalMet : 2);
    })
    .action(async (options: { run: string; format: 'claude' | 'codex' | 'gemini'; socket?: string; timeout: string }) => {
      const { bridgeCommand } = await import('./bridge-cli.js');
      await bridgeCommand(options);
    });

  program
    .command('replay')
    .description('show a recorded run without running anything')
    .argument('<events>', 'an events.jsonl file, or the run directory holding it')
    .option('--headless', 'print the folded final state as JSON')
    .action(async (given: string, options: { headless?: boolean }) => {
      const file = isDirectory(given) ? path.join(given, LOG_FILE) : given;
      await checkReadable(given, file);
      // A log with no event is unusable as a missing one is: said on stderr, exit 1.
      // So is one with lines but none of them a readable event: its warnings first, then why.
      const { noEventsIn } = await import('./engine/log.js');
      const none = noEventsIn(file);
      if (none) {
        printWarnings(none.warnings);
        fail(`${file}: no events (${none.why}); nothing to replay`);
      }
      const headless = options.headless || !consoleTerminal();
      // The frame's outline first, with plain writes, while the log is read and React and Ink load.
      if (!headless) await showOutline(outlineOfLog(file));
      if (headless) {
        // Read a chunk at a time and folded while parsing: neither the text nor the events
        // are held, so a long log replays in the memory of its state.
        const { foldLogFile } = await import('./engine/log.js');
        const { stateAsJson } = await import('./engine/fold.js');
        const { state: folded, warnings, notes } = foldLogFile(file);
        const state = stateAsJson(folded);
        printWarnings(warnings);
        printNotes(notes);
        // A damaged log names what was skipped in the JSON too, for a script that reads only stdout.
        await writeJsonChunks({ ...state, ...(warnings.length > 0 ? { log_warnings: warnings } : {}), ...(notes.length > 0 ? { log_notes: notes } : {}) }, 2);
        return;
      }
      const { replayLogConsole } = await importLive(() => import('./ui/run-console.js'));
      // Shown in the console's notice line, and again once the console is gone.
      const { warnings, notes } = await replayLogConsole(file);
      printWarnings(warnings);
      printNotes(notes);
    });

  return program;
}
