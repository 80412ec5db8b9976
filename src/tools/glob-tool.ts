import { posix } from 'node:path';
import { z } from 'zod';
import { defineTool, ok } from './define-tool.js';
import { fileErrorResult } from './file-error-result.js';
import { globBase, globMatcher } from '../worktree/glob-pattern.js';
import { walkFiles } from '../worktree/walk-worktree.js';

export const DEFAULT_GLOB_MAX_RESULTS = 1_000;

export const GlobInput = z.object({
  pattern: z
    .string()
    .min(1)
    .describe('Glob such as `src/**/*.ts`, `*.md` or `{src,test}/**/*.test.ts`. A pattern without `/` matches file names at any depth.'),
  path: z.string().min(1).optional().describe('Directory the pattern is relative to (default: the worktree root).'),
  maxResults: z.number().int().min(1).max(10_000).optional().describe(`Most paths to return (default ${DEFAULT_GLOB_MAX_RESULTS}).`),
});
export type GlobInput = z.infer<typeof GlobInput>;

/** `glob`: file paths matching a pattern, sorted, skipping `.git` and `node_modules`. Read tier, no effects. */
export const globTool = defineTool({
  name: 'glob',
  description: 'Find files by glob pattern (e.g. `src/**/*.ts`). Returns matching file paths, sorted; skips .git and node_modules.',
  parameters: GlobInput,
  tier: 'read',
  effects: [],
  group: 'files',
  async execute(input, context) {
    const root = input.path ?? '.';
    const maxResults = input.maxResults ?? DEFAULT_GLOB_MAX_RESULTS;
    const base = globBase(input.pattern);
    const start = base === '' ? root : posix.join(root, base);
    const matches = globMatcher(input.pattern);
    const found: string[] = [];
    try {
      if (base !== '' && !(await context.worktree.exists(start))) return ok(`No files match ${input.pattern}.`, { paths: [] });
      for await (const file of walkFiles(context.worktree, start, context.signal)) {
        const relativeToRoot = base === '' ? file.relativePath : `${base}/${file.relativePath}`;
        if (matches(relativeToRoot)) found.push(root === '.' ? relativeToRoot : posix.join(root, relativeToRoot));
      }
    } catch (error) {
      return fileErrorResult(error, start);
    }
    found.sort();
    if (found.length === 0) return ok(`No files match ${input.pattern}.`, { paths: [] });
    const shown = found.slice(0, maxResults);
    const more = found.length > shown.length ? `\n[${found.length - shown.length} more not shown; narrow the pattern]` : '';
    return ok(shown.join('\n') + more, { paths: shown, total: found.length });
  },
});
