import type { Tree } from 'web-tree-sitter';

/**
 * A plain-JS copy of a tree-sitter syntax tree. The classifier looks at most nodes several times; with
 * web-tree-sitter every such look crosses into wasm and allocates, so one cursor pass copies the tree
 * into these objects first (measured: the walk becomes about twice as fast). Text is sliced from the
 * source on demand: tree-sitter's indices are string indices for a string input.
 */
export class SyntaxNode {
  readonly children: SyntaxNode[] = [];
  private named: SyntaxNode[] | null = null;

  constructor(
    readonly type: string,
    readonly isNamed: boolean,
    /** The field this node fills in its parent (`name`, `argument`, `redirect`, …). */
    readonly field: string | null,
    private readonly source: string,
    private readonly start: number,
    private readonly end: number,
    readonly parent: SyntaxNode | null,
  ) {}

  /** Source text of a named node; anonymous tokens are identified by `type` alone and have empty text. */
  get text(): string {
    return this.source.slice(this.start, this.end);
  }

  get childCount(): number {
    return this.children.length;
  }

  child(index: number): SyntaxNode | null {
    return this.children[index] ?? null;
  }

  get namedChildren(): readonly SyntaxNode[] {
    this.named ??= this.children.filter((child) => child.isNamed);
    return this.named;
  }

  get namedChildCount(): number {
    return this.namedChildren.length;
  }

  namedChild(index: number): SyntaxNode | null {
    return this.namedChildren[index] ?? null;
  }

  fieldNameForChild(index: number): string | null {
    return this.children[index]?.field ?? null;
  }

  childForFieldName(field: string): SyntaxNode | null {
    return this.children.find((child) => child.field === field) ?? null;
  }

  childrenForFieldName(field: string): SyntaxNode[] {
    return this.children.filter((child) => child.field === field);
  }
}

/** Nesting deeper than this is refused (reported as an error) rather than risking the stack. */
const MAX_DEPTH = 200;

/** Copies a tree; `hasError` is true for syntax errors, missing tokens or nesting beyond the limit. */
export function copySyntaxTree(tree: Tree, source: string): { root: SyntaxNode; hasError: boolean } {
  const cursor = tree.walk();
  let tooDeep = false;
  const copy = (parent: SyntaxNode | null, depth: number): SyntaxNode => {
    // Anonymous tokens (`&&`, `|`, `>`, quotes) are only ever looked at by type: skipping their field
    // and offsets saves three wasm calls each.
    const named = cursor.nodeIsNamed;
    const node = named
      ? new SyntaxNode(cursor.nodeType, true, cursor.currentFieldName, source, cursor.startIndex, cursor.endIndex, parent)
      : new SyntaxNode(cursor.nodeType, false, null, source, 0, 0, parent);
    if (depth >= MAX_DEPTH) {
      tooDeep = true;
      return node;
    }
    if (cursor.gotoFirstChild()) {
      do {
        node.children.push(copy(node, depth + 1));
      } while (cursor.gotoNextSibling());
      cursor.gotoParent();
    }
    return node;
  };
  try {
    const root = copy(null, 0);
    return { root, hasError: tree.rootNode.hasError || tooDeep };
  } finally {
    cursor.delete();
  }
}
