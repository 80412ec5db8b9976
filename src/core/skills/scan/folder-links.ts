import type { SkillFolderEntry } from './scan-types.js';

/** How many links one lookup may pass through before it is a loop (Linux's MAXSYMLINKS). */
const MAX_LINK_HOPS = 40;

/** Where a link of a skill folder leads, resolved as the file system would; `via` lists the links passed, the link itself first. */
export type LinkResolution = { ok: true; kind: 'file' | 'directory'; path: string; via: string[] } | { ok: false; problem: string; via: string[] };

/**
 * Resolves every link of a skill folder the way the file system will once the folder is written
 * (SEC-12, realpath semantics): path components left to right, each link replaced by its target
 * relative to the link's own folder, so `..` after a linked folder climbs from where that link
 * really leads — not from where its name sits. Judging each link's text on its own misses this:
 * `deep/er/j -> ../../refs` and `t -> deep/er/j/../../../secret` both read as inside the folder,
 * yet `t` leads one level above it. A link is acceptable only when its final target is a file of
 * the folder, or a folder of it that does not hold the link and whose own links never lead back to
 * it (either would be a loop for a walker following links); absolute, climbing, dangling,
 * through-a-file and looping links are refused.
 */
export function resolveFolderLinks(entries: readonly SkillFolderEntry[]): Map<string, LinkResolution> {
  const files = new Set<string>();
  const links = new Map<string, string>();
  const folders = new Set<string>(['']);
  for (const entry of entries) {
    if (entry.kind === 'file') files.add(entry.path);
    else links.set(entry.path, entry.linkTarget ?? '');
    const segments = entry.path.split('/');
    for (let end = 1; end < segments.length; end++) folders.add(segments.slice(0, end).join('/'));
  }
  const resolutions = new Map<string, LinkResolution>();
  for (const path of links.keys()) resolutions.set(path, resolveLink(path, { files, links, folders }));
  const looping = linksInFolderLoops(resolutions);
  for (const [path, resolution] of resolutions) {
    if (!resolution.ok) continue;
    const { via } = resolution;
    if (looping.has(path)) resolutions.set(path, { ok: false, problem: 'leads to a folder whose links lead back to it (a loop)', via });
    // Such a link is never written, so a link resolved through it would dangle once the folder is.
    else if (via.some((link) => looping.has(link))) resolutions.set(path, { ok: false, problem: 'goes through a link that loops', via });
  }
  return resolutions;
}

/**
 * The links to folders that a walker following links would enter without end. Each link is checked
 * alone to not lead to a folder holding it, but two together can: `a/x -> ../b` with `b/y -> ../a` —
 * walking `a` enters `b` through `x`, whose `y` enters `a` again, and so on. A link to folder T is
 * refused when some link that T holds, at any depth and through the links it leads to, leads back
 * to T or to a folder holding T: every link of such a loop, and every link leading into a folder
 * of one (walking it would never end either).
 */
function linksInFolderLoops(resolutions: ReadonlyMap<string, LinkResolution>): Set<string> {
  const targets = new Map<string, string>();
  for (const [path, resolution] of resolutions) if (resolution.ok && resolution.kind === 'directory') targets.set(path, resolution.path);
  // The links a walker meets inside the folder a link leads to.
  const held = new Map<string, string[]>();
  for (const [path, target] of targets) held.set(path, [...targets.keys()].filter((other) => other.startsWith(`${target}/`)));
  const looping = new Set<string>();
  for (const [start, folder] of targets) {
    // Depth-first through the links met on the way, each once: one leading to `folder` or above it is a loop.
    const seen = new Set<string>();
    const stack = [...held.get(start)!];
    while (stack.length > 0) {
      const link = stack.pop()!;
      if (seen.has(link)) continue;
      seen.add(link);
      const target = targets.get(link)!;
      if (folder === target || folder.startsWith(`${target}/`)) {
        looping.add(start);
        break;
      }
      stack.push(...held.get(link)!);
    }
  }
  return looping;
}

/** True when `target` is not a relative POSIX path a written folder could hold (absolute, Windows-shaped, empty, NUL). */
function unusableTarget(target: string): boolean {
  return target === '' || target.startsWith('/') || /^[A-Za-z]:/.test(target) || target.includes('\\') || target.includes('\0');
}

function resolveLink(linkPath: string, folder: { files: Set<string>; links: Map<string, string>; folders: Set<string> }): LinkResolution {
  const via = [linkPath];
  const first = folder.links.get(linkPath)!;
  if (unusableTarget(first)) return { ok: false, problem: 'is absolute or not a plain relative path', via };
  // The resolved real path so far, one segment per entry, and what is left to walk.
  const resolved = linkPath.split('/').slice(0, -1);
  let pending = first.split('/');
  while (pending.length > 0) {
    // Anything after a file — `file/x`, `file/..`, even `file/` — is ENOTDIR on a real file system.
    if (resolved.length > 0 && folder.files.has(resolved.join('/'))) return { ok: false, problem: 'goes through a file as if it were a folder', via };
    const segment = pending.shift()!;
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (resolved.length === 0) return { ok: false, problem: 'leads outside the skill folder', via };
      resolved.pop();
      continue;
    }
    resolved.push(segment);
    const here = resolved.join('/');
    const target = folder.links.get(here);
    if (target !== undefined) {
      via.push(here);
      if (via.length > MAX_LINK_HOPS) return { ok: false, problem: 'passes through too many links (a loop)', via };
      if (unusableTarget(target)) return { ok: false, problem: 'leads to an absolute or not plain relative path', via };
      resolved.pop();
      pending = [...target.split('/'), ...pending];
      continue;
    }
    if (!folder.files.has(here) && !folder.folders.has(here)) return { ok: false, problem: 'points at nothing in the skill folder', via };
  }
  const path = resolved.join('/');
  if (folder.files.has(path)) return { ok: true, kind: 'file', path, via };
  if (path === '' || linkPath.startsWith(`${path}/`)) return { ok: false, problem: 'leads to a folder that holds the link itself (a loop)', via };
  return { ok: true, kind: 'directory', path, via };
}

/** A sentence naming a refused link, its target and the links it went through: what the operator reads in the report. */
export function describeRefusedLink(linkPath: string, target: string, resolution: Extract<LinkResolution, { ok: false }>): string {
  const through = resolution.via.slice(1);
  return `is a symbolic link to '${target}' that ${resolution.problem}${through.length > 0 ? ` (resolved through ${through.map((link) => `'${link}'`).join(' → ')})` : ''}`;
}
