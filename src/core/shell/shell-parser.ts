import { createRequire } from 'node:module';
import { Language, Parser, type Tree } from 'web-tree-sitter';

let parser: Parser | null = null;
let loading: Promise<void> | null = null;

/**
 * Loads the tree-sitter-bash grammar once (the core's only I/O). Classification is synchronous after
 * this resolves; calling it again is free. One parser instance is reused for every parse: parsing is
 * single-threaded and a parse never outlives the call that made it.
 */
export function loadShellParser(): Promise<void> {
  if (parser) return Promise.resolve();
  loading ??= (async () => {
    await Parser.init();
    const wasmPath = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
    const bash = await Language.load(wasmPath);
    const instance = new Parser();
    instance.setLanguage(bash);
    parser = instance;
  })().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

/** True once {@link loadShellParser} has resolved. */
export function isShellParserLoaded(): boolean {
  return parser !== null;
}

/**
 * Parses a command line. The caller owns the tree and must `delete()` it (it lives in wasm memory).
 * Returns `null` when tree-sitter gives up (it practically never does; it reports errors in the tree).
 */
export function parseShell(source: string): Tree | null {
  if (!parser) throw new Error('shell parser not loaded: await loadShellParser() once before classifying');
  return parser.parse(source);
}
