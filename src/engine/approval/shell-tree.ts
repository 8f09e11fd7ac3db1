/**
 * mvdan/sh's syntax tree as plain JavaScript objects, read straight from the parser's own
 * objects, and a walk over it in the order of mvdan/sh's `syntax.Walk`.
 *
 * Why: `mvdan-sh` (its GopherJS build) hands out a fresh wrapper for every field read and
 * every node its `Walk` visits, converting whole slices on each access; reading a 128 KiB
 * command (tens of thousands of nodes) through it took seconds per pass, and its recursive
 * `Walk` overflows the stack on a long pipeline. Here each node of the parser's tree is
 * converted once, in one pass without recursion: a node keeps the parser's exported field
 * names (`Stmts`, `Cmd`, `Args`, `Parts`, `Value`, ...), slices become arrays, nil pointers
 * and interfaces become `null`, strings are decoded from UTF-8 as the wrappers do, and
 * positions stay the parser's own values (`Offset()`, `IsValid()` are its methods), as
 * `Pos()`/`End()` are the parser's own methods. Comments are not kept by the parser
 * (no `KeepComments`), so none occur.
 *
 * This reads the layout GopherJS gives Go values (struct fields as properties, slices as
 * `{$array, $offset, $length}`, `constructor.string` naming the type), pinned with the
 * `mvdan-sh` version in package.json; {@link mirrorTree} checks that layout and throws a
 * clear error when a different build does not have it.
 */

/** A position in the source: the byte offset (UTF-8), and whether the parser set it. */
export interface ShPos {
  Offset(): number;
  IsValid(): boolean;
}

/** A value of the parser's own object model (GopherJS). */
interface GoValue {
  constructor: { string?: unknown; nil?: unknown };
  [field: string]: unknown;
}
interface GoSlice {
  $array: unknown[];
  $offset: number;
  $length: number;
}
/** A position as the parser keeps it; its own methods `Offset()` and `IsValid()` read it. */
type GoPos = ShPos;
interface GoNode extends GoValue {
  Pos(): GoPos;
  End(): GoPos;
}


/**
 * One node of the tree: `type` is mvdan/sh's type name (`CallExpr`, `Word`, `Lit`, ...);
 * the parser's exported fields are own properties of the same names.
 */
export class TreeNode {
  [field: string]: unknown;
  constructor(
    readonly type: string,
    private readonly go: GoNode,
  ) {}
  /** The position of the node's first character. */
  Pos(): ShPos {
    return this.go.Pos();
  }
  /** The position just after the node's last character. */
  End(): ShPos {
    return this.go.End();
  }
}

const TYPE_PREFIX = '*syntax.';
const fieldsByType = new Map<unknown, string[]>();

/** The exported field names of a parser object (the same for every object of its type). */
function exportedFields(value: GoValue): string[] {
  let fields = fieldsByType.get(value.constructor);
  if (!fields) {
    fields = Object.keys(value).filter((key) => /^[A-Z]/.test(key));
    fieldsByType.set(value.constructor, fields);
  }
  return fields;
}

/** A Go string (one character per UTF-8 byte) as a JavaScript string. */
function goString(text: string): string {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) >= 0x80) return Buffer.from(text, 'latin1').toString('utf8');
  }
  return text;
}

function isSlice(value: object): value is GoSlice {
  return '$array' in value && '$length' in value;
}

/**
 * Converts the parser's tree under `root` (the object behind a wrapper's
 * `__internal_object__`) into {@link TreeNode}s, iteratively (no recursion, whatever the depth).
 * @throws Error when `root` does not have the layout described in the module doc
 */
export function mirrorTree(root: unknown): TreeNode {
  const pending: Array<[TreeNode, GoValue]> = [];
  const convert = (value: unknown): unknown => {
    if (typeof value === 'string') return goString(value);
    if (typeof value !== 'object' || value === null) return value;
    const go = value as GoValue;
    const type = go.constructor?.string;
    if (typeof type !== 'string') return null; // a nil interface
    if (isSlice(go)) {
      const items = new Array<unknown>(go.$length);
      for (let i = 0; i < go.$length; i++) items[i] = convert(go.$array[go.$offset + i]);
      return items;
    }
    if (go === go.constructor.nil) return null;
    if (type === '*syntax.Pos') return go; // a value: its methods read it
    if (!type.startsWith(TYPE_PREFIX)) throw new Error(`mvdan-sh: unexpected value of type ${type} in the syntax tree`);
    const node = new TreeNode(type.slice(TYPE_PREFIX.length), go as GoNode);
    pending.push([node, go]);
    return node;
  };
  const top = convert(root);
  if (!(top instanceof TreeNode)) throw new Error('mvdan-sh: the parsed file is not a syntax tree object this version of loopdeck can read');
  while (pending.length > 0) {
    const [node, go] = pending.pop()!;
    for (const field of exportedFields(go)) node[field] = convert(go[field]);
  }
  return top;
}

/** The children `syntax.Walk` visits, in its order (walk.go of mvdan/sh; comments left out). */
function children(node: TreeNode): readonly unknown[] {
  const n = node as Record<string, unknown> & { Repl?: { Orig: unknown; With: unknown } | null; Exp?: { Word: unknown } | null };
  const list = (field: string): unknown[] => (n[field] as unknown[] | null) ?? [];
  switch (node.type) {
    case 'File':
    case 'Subshell':
    case 'Block':
    case 'CmdSubst':
    case 'ProcSubst':
      return list('Stmts');
    case 'Comment':
    case 'Lit':
    case 'SglQuoted':
      return [];
    case 'Stmt':
      return [n.Cmd, ...list('Redirs')];
    case 'Assign':
      return [n.Name, n.Value, n.Index, n.Array];
    case 'Redirect':
      return [n.N, n.Word, n.Hdoc];
    case 'CallExpr':
      return [...list('Assigns'), ...list('Args')];
    case 'IfClause':
      return [...list('Cond'), ...list('Then'), n.Else];
    case 'WhileClause':
      return [...list('Cond'), ...list('Do')];
    case 'ForClause':
      return [n.Loop, ...list('Do')];
    case 'WordIter':
      return [n.Name, ...list('Items')];
    case 'CStyleLoop':
      return [n.Init, n.Cond, n.Post];
    case 'BinaryCmd':
    case 'BinaryArithm':
    case 'BinaryTest':
      return [n.X, n.Y];
    case 'FuncDecl':
      return [n.Name, n.Body];
    case 'Word':
    case 'DblQuoted':
      return list('Parts');
    case 'ParamExp':
      return [n.Param, n.Index, n.Repl?.Orig, n.Repl?.With, n.Exp?.Word];
    case 'ArithmExp':
    case 'ArithmCmd':
    case 'UnaryArithm':
    case 'UnaryTest':
    case 'ParenArithm':
    case 'ParenTest':
    case 'TestClause':
      return [n.X];
    case 'CaseClause':
      return [n.Word, ...list('Items')];
    case 'CaseItem':
      return [...list('Patterns'), ...list('Stmts')];
    case 'DeclClause':
      return list('Args');
    case 'ArrayExpr':
      return list('Elems');
    case 'ArrayElem':
      return [n.Index, n.Value];
    case 'ExtGlob':
      return [n.Pattern];
    case 'TimeClause':
      return [n.Stmt];
    case 'CoprocClause':
      return [n.Name, n.Stmt];
    case 'LetClause':
      return list('Exprs');
    case 'TestDecl':
      return [n.Description, n.Body];
    default:
      throw new Error(`syntax.Walk: unexpected node type ${node.type}`);
  }
}

const LEAVE = Symbol('leave');
const NONE: readonly unknown[] = [];

/**
 * mvdan/sh's `syntax.Walk` over a {@link TreeNode} tree, without recursion: `visit(node)`
 * first; when it returns true, each non-null child in order, then `visit(null)`.
 */
export function walkTree(root: TreeNode, visit: (node: TreeNode | null) => boolean): void {
  const stack: Array<TreeNode | typeof LEAVE> = [root];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (next === LEAVE) {
      visit(null);
      continue;
    }
    if (!visit(next)) continue;
    stack.push(LEAVE);
    const kids = next.type === 'Lit' || next.type === 'SglQuoted' ? NONE : children(next);
    for (let i = kids.length - 1; i >= 0; i--) {
      const kid = kids[i];
      if (kid instanceof TreeNode) stack.push(kid);
    }
  }
}
