// Destructive commands are recognised by their parsed options, in every spelling and
// wherever they stand in a command; the destructive-deny hook denies them. Pure, except
// the hook rows, which go through a real HookRegistry.
import { describe, expect, it } from 'vitest';
import { HookRegistry } from '../../../src/engine/hooks.js';
import type { ToolCall } from '../../../src/engine/types.js';
import { destructiveCommand } from '../../../src/engine/approval/destructive-commands.js';
import { destructiveDeny } from '../../../src/hooks/destructive-deny.js';

const shell = (command: string): ToolCall => ({ id: 't', name: 'shell', args: { command } });

/** Destructive, each with the program it is recognised as. */
const DESTRUCTIVE: ReadonlyArray<readonly [string, string]> = [
  // rm: recursive and force, however spelt
  ['rm -rf build', 'rm -r -f'],
  ['rm -Rf build', 'rm -r -f'],
  ['rm -fr build', 'rm -r -f'],
  ['rm -fR build', 'rm -r -f'],
  ['rm -f -r build', 'rm -r -f'],
  ['rm -r -f build', 'rm -r -f'],
  ['rm -rfv build', 'rm -r -f'],
  ['rm -vrf build', 'rm -r -f'],
  ['rm -r -v -f build', 'rm -r -f'],
  ['rm --recursive --force build', 'rm -r -f'],
  ['rm --force --recursive build', 'rm -r -f'],
  ['rm --rec --for build', 'rm -r -f'],
  ['rm -r --force build', 'rm -r -f'],
  ['rm --recursive -f build', 'rm -r -f'],
  ['rm build -rf', 'rm -r -f'],
  ['rm -r build -f', 'rm -r -f'],
  ['rm -rf -- build', 'rm -r -f'],
  ["rm '-rf' build", 'rm -r -f'],
  ['rm "-r" "-f" build', 'rm -r -f'],
  ['rm -r""f build', 'rm -r -f'],
  ['r\\m -rf build', 'rm -r -f'],
  ["'rm' -rf build", 'rm -r -f'],
  ['rm -rf $DIR', 'rm -r -f'],
  ['rm $DIR -rf', 'rm -r -f'],
  ['rm -rf --no-preserve-root /', 'rm -r -f'],
  ['/bin/rm -rf build', 'rm -r -f'],
  ['/usr/bin/rm -rf build', 'rm -r -f'],
  ['./rm -rf build', 'rm -r -f'],
  ['\\rm -rf build', 'rm -r -f'],
  ['command rm -rf build', 'rm -r -f'],
  ['command -p rm -rf build', 'rm -r -f'],
  ['builtin command rm -rf build', 'rm -r -f'],
  ['exec rm -rf build', 'rm -r -f'],
  ['sudo rm -rf build', 'rm -r -f'],
  ['sudo -u root -- rm -rf /', 'rm -r -f'],
  ['doas rm -rf build', 'rm -r -f'],
  ['env X=1 rm -rf build', 'rm -r -f'],
  ['env -i PATH=/bin rm -rf build', 'rm -r -f'],
  ["env -S 'rm -rf build'", 'rm -r -f'],
  ['X=1 rm -rf build', 'rm -r -f'],
  ['nice -n 5 rm -rf build', 'rm -r -f'],
  ['nohup rm -rf build', 'rm -r -f'],
  ['timeout 5 rm -rf build', 'rm -r -f'],
  ['timeout -s KILL -k 2 5 rm -rf build', 'rm -r -f'],
  ['time rm -rf build', 'rm -r -f'],
  ['busybox rm -rf build', 'rm -r -f'],
  ['stdbuf -o0 rm -rf build', 'rm -r -f'],
  ['setsid rm -rf build', 'rm -r -f'],
  ['xargs rm -rf < list', 'rm -r -f'],
  ['find . -name tmp | xargs -0 rm -rf', 'rm -r -f'],
  ['find . -type d -exec rm -rf {} +', 'rm -r -f'],
  ['find . -execdir rm -r -f {} \\;', 'rm -r -f'],
  ['ls && rm -rf build', 'rm -r -f'],
  ['ls || rm -rf build', 'rm -r -f'],
  ['ls; rm -rf build', 'rm -r -f'],
  ['ls\nrm -rf build', 'rm -r -f'],
  ['ls | rm -rf build', 'rm -r -f'],
  ['rm -rf build &', 'rm -r -f'],
  ['(cd src && rm -rf build)', 'rm -r -f'],
  ['{ rm -rf build; }', 'rm -r -f'],
  ['echo $(rm -rf build)', 'rm -r -f'],
  ['echo `rm -rf build`', 'rm -r -f'],
  ['cat <(rm -rf build)', 'rm -r -f'],
  ['if true; then rm -rf build; fi', 'rm -r -f'],
  ['for d in a b; do rm -rf $d; done', 'rm -r -f'],
  ['f() { rm -rf build; }; f', 'rm -r -f'],
  ["sh -c 'rm -rf build'", 'rm -r -f'],
  ["bash -lc 'cd x && rm -rf build'", 'rm -r -f'],
  ["sudo sh -c 'rm -rf build'", 'rm -r -f'],
  ['sh -c "echo hi; rm -fr build"', 'rm -r -f'],
  ["sh -c \"bash -c 'rm -rf build'\"", 'rm -r -f'],
  ['eval rm -rf build', 'rm -r -f'],
  ["eval 'rm -rf build'", 'rm -r -f'],
  ['sh <<EOF\nrm -rf build\nEOF', 'rm -r -f'],
  ["sh -c -- 'rm -rf build'", 'rm -r -f'],
  ["echo 'rm -rf build' | sh", 'rm -r -f'],
  ['echo "rm -rf $D" | bash -s', 'rm -r -f'],
  ["printf 'cd x\\nrm -rf build\\n' | bash", 'rm -r -f'],
  ['sh -c "rm -rf $DIR"', 'rm -r -f'],
  ['bash -c "cd $D && rm -rf build"', 'rm -r -f'],
  ['eval "rm -rf $X"', 'rm -r -f'],
  ["su -c 'rm -rf build'", 'rm -r -f'],
  ["trap 'rm -rf build' EXIT", 'rm -r -f'],
  ["watch 'rm -rf build'", 'rm -r -f'],
  ['watch -n 5 rm -rf build', 'rm -r -f'],
  ['flock /tmp/lock rm -rf build', 'rm -r -f'],
  ['rm -r --interactive=never build', 'rm -r -f'],
  ['rm --recursive --inter=never build', 'rm -r -f'],
  ["bash <<< 'rm -rf build'", 'rm -r -f'],
  // git clean: anything but a dry run
  ['git clean -fd', 'git clean'],
  ['git clean -df', 'git clean'],
  ['git clean -dfx', 'git clean'],
  ['git clean -xfd', 'git clean'],
  ['git clean -fdx', 'git clean'],
  ['git clean -f -d', 'git clean'],
  ['git clean -f', 'git clean'],
  ['git clean --force', 'git clean'],
  ['git clean --force -d -x', 'git clean'],
  ['git clean -ffdx', 'git clean'],
  ['git clean -d -e keep -f', 'git clean'],
  ['git -C /other/repo clean -fdx', 'git clean'],
  ['git -c clean.requireForce=false clean -d', 'git clean'],
  ['git --git-dir .git --work-tree . clean -fd', 'git clean'],
  ['git --no-pager clean -fd', 'git clean'],
  ['git $OPTS clean -fd', 'git clean'],
  ['/usr/bin/git clean -fd', 'git clean'],
  // git reset --hard
  ['git reset --hard', 'git reset --hard'],
  ['git reset --hard HEAD~3', 'git reset --hard'],
  ['git reset HEAD~1 --hard', 'git reset --hard'],
  ['git reset -q --hard origin/main', 'git reset --hard'],
  ['git reset --har', 'git reset --hard'],
  ['git -C sub reset --hard', 'git reset --hard'],
  ["git -c alias.wipe='reset --hard' wipe", 'git reset --hard'],
  ["git -c 'alias.x=!rm -rf build' x", 'rm -r -f'],
  // checkout and restore of paths
  ['git checkout .', 'git checkout <paths>'],
  ['git checkout -- .', 'git checkout <paths>'],
  ['git checkout -- src/a.ts', 'git checkout <paths>'],
  ['git checkout HEAD -- src/a.ts', 'git checkout <paths>'],
  ['git checkout HEAD src/a.ts', 'git checkout <paths>'],
  ['git checkout ./src', 'git checkout <paths>'],
  ['git checkout :/', 'git checkout <paths>'],
  ["git checkout '*.ts'", 'git checkout <paths>'],
  ['git checkout -f main', 'git checkout <paths>'],
  ['git checkout --force main', 'git checkout <paths>'],
  ['git checkout --pathspec-from-file=list', 'git checkout <paths>'],
  ['git switch --discard-changes main', 'git switch --discard-changes'],
  ['git switch -f main', 'git switch --discard-changes'],
  ['git restore .', 'git restore <paths>'],
  ['git restore src/a.ts', 'git restore <paths>'],
  ['git restore --worktree .', 'git restore <paths>'],
  ['git restore -W .', 'git restore <paths>'],
  ['git restore --staged --worktree .', 'git restore <paths>'],
  ['git restore -SW .', 'git restore <paths>'],
  ['git restore --source=HEAD~2 src', 'git restore <paths>'],
  ['git restore -s HEAD~2 src', 'git restore <paths>'],
  // push that rewrites or deletes remote history
  ['git push --force', 'git push --force'],
  ['git push -f', 'git push --force'],
  ['git push -f origin main', 'git push --force'],
  ['git push origin main -f', 'git push --force'],
  ['git push -uf origin main', 'git push --force'],
  ['git push --force-with-lease', 'git push --force'],
  ['git push --force-with-lease=main:abc123 origin main', 'git push --force'],
  ['git push --force-if-includes --force-with-lease', 'git push --force'],
  ['git push origin +main', 'git push --force'],
  ['git push origin +HEAD:main', 'git push --force'],
  ['git push origin main +feature', 'git push --force'],
  ['git push --forc origin main', 'git push --force'],
  ['git push -o ci.skip -f origin main', 'git push --force'],
  ['git -C repo push --force', 'git push --force'],
  ['git push --delete origin feature', 'git push --delete'],
  ['git push origin :feature', 'git push --delete'],
  ['git push --mirror backup', 'git push --delete'],
  ['git push --prune origin', 'git push --delete'],
  // stash, disks, power
  ['git stash drop', 'git stash drop'],
  ['git stash clear', 'git stash clear'],
  ['dd if=/dev/zero of=/dev/sda', 'dd'],
  ['mkfs.ext4 /dev/sdb1', 'mkfs.ext4'],
  ['mkfs -t ext4 /dev/sdb1', 'mkfs'],
  ['sudo shutdown -h now', 'shutdown'],
  ['reboot', 'reboot'],
];

/** Not destructive in this sense (the approval gate still asks about most of them). */
const NOT_DESTRUCTIVE: readonly string[] = [
  'rm notes.txt',
  'rm -f notes.txt',
  'rm -r ./tmp',
  'rm -r ./tmp ./src /elsewhere',
  'rm -R build',
  'rm --recursive build',
  'rm -i -r build',
  'rm -r --interactive=always build',
  "trap 'echo bye' EXIT",
  "echo 'rm -rf build' | cat",
  "echo 'rm -rf build' | sh -c cat",
  'watch git status',
  "sh -c 'rm -r build'",
  'rm -r -- -f',
  'rm -d empty-dir',
  'rm -v old.log',
  'rmdir build',
  'echo rm -rf build',
  "echo 'rm -rf build'",
  'printf "%s\\n" "rm -rf x"',
  'grep -rf patterns.txt src',
  'ls -rf',
  'git rm -rf build',
  'git rm --cached -r build',
  'node --test',
  'npm run clean',
  'make clean',
  'git status',
  'git diff --stat',
  'git log --oneline -5',
  'git commit -m "rm -rf the old build"',
  'git clean -n',
  'git clean -nd',
  'git clean --dry-run -fdx',
  'git clean -fdn',
  'git reset',
  'git reset HEAD~1',
  'git reset --soft HEAD~1',
  'git reset --mixed',
  'git checkout main',
  'git checkout -b feature',
  'git checkout -b fix-force origin/main',
  'git checkout -bfeature',
  'git checkout v1.2.0',
  'git checkout HEAD~2',
  'git switch main',
  'git switch -c feature',
  'git restore --staged src/a.ts',
  'git restore -S .',
  'git push',
  'git push origin main',
  'git push -u origin feature',
  'git push --set-upstream origin feature',
  'git push origin main:main',
  'git push --tags',
  'git push --dry-run --force',
  'git push -n -f origin main',
  'git stash',
  'git stash pop',
  'git stash list',
  'git -C sub status',
  'git branch -d merged',
  'find . -name "*.o"',
  'find . -exec grep -l x {} +',
  "sh -c 'ls -la'",
  'ls # rm -rf build',
  'cat dd.txt',
  'echo reboot',
];

describe('destructive commands, by parsed options', () => {
  it.each(DESTRUCTIVE)('%j is destructive (%s)', (command, program) => {
    expect(destructiveCommand(command)?.command).toBe(program);
  });

  it.each(NOT_DESTRUCTIVE)('%j is not destructive', (command) => {
    expect(destructiveCommand(command)).toBeNull();
  });

  it('cannot read a command that does not parse: it is left to the approval gate', () => {
    expect(destructiveCommand('rm -rf build "')).toBeNull();
  });
});

describe('the destructive-deny hook', () => {
  async function decide(command: string) {
    const registry = new HookRegistry();
    destructiveDeny(registry);
    return (await registry.call('before_tool_call', { call: shell(command), granted: [] })).decision;
  }

  it.each(DESTRUCTIVE.map(([command]) => command))('denies %j', async (command) => {
    expect((await decide(command))?.type).toBe('deny');
  });

  it.each(NOT_DESTRUCTIVE)('lets %j through to the approval gate', async (command) => {
    expect(await decide(command)).toBeNull();
  });

  it('says what it recognised and why it is destructive', async () => {
    expect(await decide('sudo rm --recursive --force /')).toEqual({ type: 'deny', reason: 'destructive command: rm -r -f (deletes recursively without asking)' });
    expect(await decide('git -C ../other push origin +main')).toEqual({ type: 'deny', reason: 'destructive command: git push --force (rewrites remote history)' });
  });

  it('ignores tools other than shell', async () => {
    const registry = new HookRegistry();
    destructiveDeny(registry);
    const outcome = await registry.call('before_tool_call', { call: { id: 't', name: 'write_file', args: { path: 'rm -rf', content: '' } }, granted: [] });
    expect(outcome.decision).toBeNull();
  });
});
