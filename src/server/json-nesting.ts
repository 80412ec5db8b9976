/**
 * The deepest nesting of arrays and objects a JSON request body may have (SEC-10). Real bodies (tool
 * inputs, JSON-RPC calls, settings) are a few levels deep; the cap is far above them.
 */
export const MAX_JSON_NESTING = 128;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Calls `visit` with every character code of `text` outside string contents (the quotes themselves
 * are skipped too), until `visit` returns true; returns whether it did. One linear pass, for the
 * checks that must run before `JSON.parse` (nesting here, width in `json-breadth.ts`).
 */
export function scanJsonStructure(text: string, visit: (code: number) => boolean): boolean {
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index += 1;
      else if (code === QUOTE) inString = false;
      continue;
    }
    if (code === QUOTE) inString = true;
    else if (visit(code)) return true;
  }
  return false;
}

/**
 * Whether `text` nests arrays and objects deeper than `limit`, by one linear pass that skips string
 * contents. It runs before `JSON.parse` because V8's parser slows down sharply on deep nesting: 5 MiB
 * of `[[[[…]]]]` held the event loop for seconds, while this pass takes milliseconds.
 */
export function nestsDeeperThan(text: string, limit: number = MAX_JSON_NESTING): boolean {
  let depth = 0;
  return scanJsonStructure(text, (code) => {
    if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      depth += 1;
      return depth > limit;
    }
    if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth -= 1;
    return false;
  });
}
