// The syntax tree read straight from the parser's objects (shell-tree.ts) is the tree
// mvdan-sh's own wrappers show, visited in the order of its own `syntax.Walk`: for a corpus
// of scripts using every kind of node, both walks give the same nodes, positions and values.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { nodeType, parseShell, walk, type ShNode } from '../../../src/engine/approval/shell-syntax.js';

interface Wrapped {
  Pos(): { Offset(): number; IsValid(): boolean };
  End(): { Offset(): number };
  [field: string]: unknown;
}
interface Syntax {
  NewParser(): { Parse(text: string, name: string): Wrapped };
  NodeType(node: Wrapped): string;
  Walk(node: Wrapped, visit: (node: Wrapped | null) => boolean): void;
}

parseShell('true'); // loads mvdan-sh the way the engine does (and undoes its globals)
const syntax = (createRequire(import.meta.url)('mvdan-sh') as { syntax: Syntax }).syntax;

/** One visit: the type, where the node is, and the text fields a guard reads. */
function describeNode(type: string, node: Wrapped | ShNode): string {
  const fields = node as unknown as Record<string, unknown>;
  const extra = ['Value', 'Dollar', 'Backquotes', 'Negated', 'Background', 'Bracket']
    .filter((field) => typeof fields[field] === 'string' || typeof fields[field] === 'boolean')
    .map((field) => `${field}=${JSON.stringify(fields[field])}`);
  if (type === 'Stmt') extra.push(`Semicolon=${(fields.Semicolon as { IsValid(): boolean }).IsValid()}`);
  if (type === 'Redirect' || type === 'BinaryCmd') extra.push(`OpPos=${(fields.OpPos as { Offset(): number }).Offset()}`);
  return `${type} ${node.Pos().Offset()}-${node.End().Offset()} ${extra.join(' ')}`.trim();
}

function wrapperWalk(script: string): string[] {
  const seen: string[] = [];
  syntax.Walk(syntax.NewParser().Parse(script, ''), (node) => {
    seen.push(node ? describeNode(syntax.NodeType(node), node) : 'end');
    return true;
  });
  return seen;
}

function treeWalk(script: string): string[] {
  const parsed = parseShell(script);
  if (!parsed.ok) throw new Error(parsed.error);
  const seen: string[] = [];
  walk(parsed.file, (node) => {
    seen.push(node ? describeNode(nodeType(node), node) : 'end');
    return true;
  });
  return seen;
}

const CORPUS = [
  'echo hi',
  "FOO=1 BAR=$'x\\ty' env -S 'rm -rf x' a \"b $c\" 'd' >out 2>&1 </dev/null",
  'a && b || c | d |& e; f & g\nh',
  'if [[ -f x && $y == z* ]]; then echo a; elif (( i++ > 2 )); then :; else echo b; fi',
  'while read -r l; do echo "$l"; done < f; until false; do break; done',
  'for i in 1 2 $(seq 3); do echo $i; done; for ((i=0; i<3; i++)); do echo; done',
  "case $x in a|b) echo 1;; *.txt) echo 2;& *) echo 3;;& esac",
  'f() { local x=1; declare -a arr=(1 2 [3]=x); export Y; }; function g { return; }',
  'echo ${a:-x} ${#b} ${c/d/e} ${f:1:2} ${!g*} ${h[@]} $((1 + 2 * (3 - x))) $[4] `echo q`',
  'diff <(ls a) >(cat) ; echo @(a|b) !(c) ; let x=1 y=x+2 ; time -p sleep 1 ; coproc cat',
  'cat <<EOF\nline $x ${y}\n$(echo z)\nEOF\ncat <<-"END"\n\tquoted $x\n\tEND\ncat <<< "here $s"',
  "echo é 'ü' \"ñ $x\" 日本 😀 $'\\u00e9'",
  '! { echo a; echo b; } && ( cd x; pwd )',
  'arr=(a b c); arr[1]=z; x+=1; echo "${arr[@]}"',
  '[ -n "$x" ] && test -z y; [[ ! -e a || ( -d b && -r c ) ]]',
];

describe('the tree read from the parser is the tree its wrappers show, walked in its order', () => {
  for (const script of CORPUS) {
    it(JSON.stringify(script).slice(0, 60), () => {
      expect(treeWalk(script)).toEqual(wrapperWalk(script));
    });
  }

  it('a walk that stops at a node skips its children and their end', () => {
    const parsed = parseShell('echo $(rm -rf x) y; ls');
    if (!parsed.ok) throw new Error(parsed.error);
    const seen: string[] = [];
    walk(parsed.file, (node) => {
      if (node) seen.push(nodeType(node));
      return node === null || nodeType(node) !== 'CallExpr';
    });
    expect(seen).toEqual(['File', 'Stmt', 'CallExpr', 'Stmt', 'CallExpr']);
  });

  it('walks a pipeline of 20,000 commands, deeper than the wrappers could without running out of stack', () => {
    const parsed = parseShell(Array(20_000).fill('cat').join(' | '));
    if (!parsed.ok) throw new Error(parsed.error);
    let calls = 0;
    walk(parsed.file, (node) => {
      if (node && nodeType(node) === 'CallExpr') calls++;
      return true;
    });
    expect(calls).toBe(20_000);
  });
});
