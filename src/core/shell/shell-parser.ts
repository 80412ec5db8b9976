import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
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
    const restore = withoutOptimizingWasmTier();
    try {
      await Parser.init();
      const wasmPath = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
      const bash = await Language.load(wasmPath);
      const instance = new Parser();
      instance.setLanguage(bash);
      parser = instance;
    } finally {
      restore();
    }
  })().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

/**
 * Compiles the wasm modules loaded until `restore()` with V8's baseline wasm compiler (Liftoff) only
 * ("the cost of a turn"). By default V8 later recompiles hot wasm functions with TurboFan
 * on a background thread, and the bash grammar's generated lexer and parse functions are so large that
 * this takes seconds of CPU (3.5 s measured on the 2 shared cores) — about 50 ms of the server's CPU
 * per tool turn over a server's first minute, and the first parse waits for it. Liftoff code parses a
 * command in ~60 µs instead of ~48 µs once TurboFan is done. The flag is read when a module is
 * compiled, so it is set only around loading the parser and put back after, unless the process was
 * started with it (`--liftoff-only` on the command line).
 */
function withoutOptimizingWasmTier(): () => void {
  if (process.execArgv.includes('--liftoff-only')) return () => undefined;
  setFlagsFromString('--liftoff-only');
  return () => setFlagsFromString('--no-liftoff-only');
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
