/** Ways to spell a request path that a router, a proxy or a prefix check may read differently (SEC-1). */

export function percent(char: string): string {
  return `%${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/** One segment, re-spelled: a character percent-encoded (once or twice), or the case changed. */
export type SegmentSpelling =
  | { kind: 'same' }
  | { kind: 'encode'; at: number; upperHex: boolean }
  | { kind: 'doubleEncode'; at: number }
  | { kind: 'encodeAll' }
  | { kind: 'upper' }
  | { kind: 'capitalize' }
  | { kind: 'matrix' };

export function respell(segment: string, spelling: SegmentSpelling): string {
  if (segment === '') return segment;
  switch (spelling.kind) {
    case 'same':
      return segment;
    case 'encode': {
      const at = spelling.at % segment.length;
      const code = percent(segment[at]!);
      return segment.slice(0, at) + (spelling.upperHex ? code.toUpperCase() : code) + segment.slice(at + 1);
    }
    case 'doubleEncode': {
      const at = spelling.at % segment.length;
      return `${segment.slice(0, at)}%25${percent(segment[at]!).slice(1)}${segment.slice(at + 1)}`;
    }
    case 'encodeAll':
      return [...segment].map(percent).join('');
    case 'upper':
      return segment.toUpperCase();
    case 'capitalize':
      return segment[0]!.toUpperCase() + segment.slice(1);
    case 'matrix':
      return `${segment};x=1`;
  }
}

/** Something put before the path, between its segments, or after it. */
export const PREFIXES = ['', '/.', '/x/..', '/', '/%2e', '/x/%2e%2e', '/..', '/%2E%2E', '/x/%252e%252e'] as const;
export const SUFFIXES = ['', '/', '//', '/.', ';x', '%2f', '%00', '/%2e'] as const;
export const JOINERS = ['/', '//', '/./', '/x/../', '%2f', '%2F', '\\', '/%2e/', '/;x/'] as const;

export interface PathSpelling {
  prefix: string;
  segments: SegmentSpelling[];
  /** Which gap between segments gets `joiner` instead of a plain `/`. */
  joinAt: number;
  joiner: string;
  suffix: string;
}

export function spell(path: string, spelling: PathSpelling): string {
  const segments = path.split('/').slice(1);
  const respelled = segments.map((segment, index) => respell(segment, spelling.segments[index] ?? { kind: 'same' }));
  let out = '';
  respelled.forEach((segment, index) => {
    out += (index === spelling.joinAt % Math.max(respelled.length, 1) && index > 0 ? spelling.joiner : '/') + segment;
  });
  return spelling.prefix + out + spelling.suffix;
}

/** The systematic list: each kind of re-spelling on each segment, and each prefix, joiner and suffix. */
export function pathVariants(path: string): string[] {
  const segments = path.split('/').slice(1);
  const same = segments.map((): SegmentSpelling => ({ kind: 'same' }));
  const variants = new Set<string>();
  const base: PathSpelling = { prefix: '', segments: same, joinAt: 0, joiner: '/', suffix: '' };
  const perSegment: SegmentSpelling[] = [
    { kind: 'encode', at: 0, upperHex: false },
    { kind: 'encode', at: 1, upperHex: true },
    { kind: 'doubleEncode', at: 0 },
    { kind: 'encodeAll' },
    { kind: 'upper' },
    { kind: 'capitalize' },
    { kind: 'matrix' },
  ];
  segments.forEach((_segment, index) => {
    for (const spelling of perSegment) {
      const all = [...same];
      all[index] = spelling;
      variants.add(spell(path, { ...base, segments: all }));
    }
  });
  for (const prefix of PREFIXES) variants.add(spell(path, { ...base, prefix }));
  for (const suffix of SUFFIXES) variants.add(spell(path, { ...base, suffix }));
  for (const joiner of JOINERS) for (let at = 1; at < segments.length; at += 1) variants.add(spell(path, { ...base, joiner, joinAt: at }));
  // The old prefix check trusted anything under an agent path; try climbing out of each.
  for (const agentPrefix of ['/mcp/..', '/api/hooks/../..', '/api/git-push/%2e%2e/%2e%2e', '/mcp%2f..', '/api/hooks/..%2f..']) variants.add(agentPrefix + path);
  variants.delete(path);
  return [...variants];
}
