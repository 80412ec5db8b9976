/**
 * `{{placeholders}}` in node text (PIPE-1): `{{source}}` or `{{source.path.to.field}}`, where
 * `source` is an upstream node's output key (or node key) or the reserved `trigger` (the trigger's
 * payload). Only letters, digits, `_`, `-` and `.` may appear inside the braces, so the grammar has
 * no escapes and no expressions for hostile text to abuse.
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_-]+)((?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;

/** The namespace of the trigger's payload; no node may use it as its key or output key. */
export const TRIGGER_SOURCE = 'trigger';

export interface PlaceholderRef {
  /** The whole `{{…}}` text. */
  text: string;
  source: string;
  path: string[];
}

export function findPlaceholders(text: string): PlaceholderRef[] {
  const refs: PlaceholderRef[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) {
    refs.push({ text: match[0], source: match[1]!, path: match[2] ? match[2].slice(1).split('.') : [] });
  }
  return refs;
}

export type PlaceholderResolution = { ok: true; text: string } | { ok: false; unresolved: string[] };

/** Looks a path up in a value; only own properties of plain objects and array indexes count. */
export function lookupPath(value: unknown, path: readonly string[]): { found: boolean; value: unknown } {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && /^\d+$/.test(segment) && Number(segment) < current.length) {
      current = current[Number(segment)];
    } else if (current !== null && typeof current === 'object' && !Array.isArray(current) && Object.prototype.hasOwnProperty.call(current, segment)) {
      current = (current as Record<string, unknown>)[segment];
    } else {
      return { found: false, value: undefined };
    }
  }
  return { found: current !== undefined, value: current };
}

function render(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Substitutes every placeholder from `sources` (output key → output). Any placeholder that does not
 * resolve makes the whole resolution fail with the list of unresolved ones: the engine then fails the
 * node rather than sending a prompt with a hole in it (PIPE-1).
 */
export function resolvePlaceholders(text: string, sources: ReadonlyMap<string, unknown>): PlaceholderResolution {
  const unresolved: string[] = [];
  const result = text.replace(PLACEHOLDER, (whole, source: string, dotted: string) => {
    if (!sources.has(source)) {
      unresolved.push(whole);
      return whole;
    }
    const found = lookupPath(sources.get(source), dotted ? dotted.slice(1).split('.') : []);
    if (!found.found) {
      unresolved.push(whole);
      return whole;
    }
    return render(found.value);
  });
  return unresolved.length > 0 ? { ok: false, unresolved } : { ok: true, text: result };
}
