/**
 * The first key that one JSON object of `text` names twice, or null (SEC-8). JSON leaves duplicate
 * keys undefined: `JSON.parse` keeps the last, other parsers keep the first. The model proxy decides
 * provider-side tools on what it parsed, so a body like `{"tools":[…web_search…],"tools":[]}` or a
 * tool `{"type":"web_search_…","type":"custom"}` could be decided on one value and read by the
 * provider as the other; such a body is refused instead. One linear pass; `text` must be valid JSON
 * (it is checked after a successful parse).
 *
 * Self-contained on purpose: the proxy's worker thread runs this same function from its source text.
 */
export function firstDuplicateKey(text: string): string | null {
  const stack: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) {
      const start = index;
      let escaped = false;
      for (index += 1; index < text.length; index++) {
        const inner = text.charCodeAt(index);
        if (inner === 0x5c) {
          escaped = true;
          index += 1;
        } else if (inner === 0x22) break;
      }
      const keys = stack.length > 0 ? stack[stack.length - 1] : null;
      if (expectKey && keys) {
        const raw = text.slice(start, index + 1);
        const key = escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
    } else if (code === 0x7b) {
      stack.push(new Set());
      expectKey = true;
    } else if (code === 0x5b) {
      stack.push(null);
      expectKey = false;
    } else if (code === 0x7d || code === 0x5d) {
      stack.pop();
      expectKey = false;
    } else if (code === 0x2c) {
      expectKey = stack.length > 0 && stack[stack.length - 1] !== null;
    }
  }
  return null;
}
