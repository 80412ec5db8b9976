import { z } from 'zod';
import { defineTool, fail, ok } from './define-tool.js';
import { fileErrorResult } from './file-error-result.js';
import { globMatcher } from '../worktree/glob-pattern.js';
import { walkFiles } from '../worktree/walk-worktree.js';

export const DEFAULT_GREP_MAX_RESULTS = 100;
/** Matching lines are cut to this length in the output. */
export const MAX_GREP_LINE_LENGTH = 500;
/** Files larger than this are skipped: they are almost never source and would stall the search. */
export const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;

export const GrepInput = z.object({
  pattern: z.string().min(1).describe('JavaScript regular expression to search for, matched line by line.'),
  path: z.string().min(1).optional().describe('File or directory to search (default: the worktree root).'),
  glob: z.string().min(1).optional().describe('Only search files matching this glob, e.g. `*.ts` or `src/**/*.tsx`.'),
  ignoreCase: z.boolean().optional().describe('Case-insensitive matching (default false).'),
  maxResults: z.number().int().min(1).max(5_000).optional().describe(`Most matching lines to return (default ${DEFAULT_GREP_MAX_RESULTS}).`),
});
export type GrepInput = z.infer<typeof GrepInput>;

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

/** `grep`: regex search over the files under a path, as `file:line: text`. Pure JS, read tier, no effects. */
export const grepTool = defineTool({
  name: 'grep',
  description:
    'Search file contents with a regular expression. Returns `path:line: text` for each matching line; filter files with a glob; skips .git, node_modules and binary files.',
  parameters: GrepInput,
  tier: 'read',
  effects: [],
  group: 'files',
  async execute(input, context) {
    let regex: RegExp;
    try {
      regex = new RegExp(input.pattern, input.ignoreCase ? 'i' : '');
    } catch (error) {
      return fail(`pattern is not a valid regular expression: ${(error as Error).message}`);
    }
    const start = input.path ?? '.';
    const maxResults = input.maxResults ?? DEFAULT_GREP_MAX_RESULTS;
    const include = input.glob ? globMatcher(input.glob) : () => true;
    const matches: string[] = [];
    let filesSearched = 0;
    let limited = false;

    const searchText = (path: string, content: string | null): void => {
      if (content === null || content.includes('\0')) return;
      filesSearched += 1;
      const lines = content.split('\n');
      for (let index = 0; index < lines.length; index += 1) {
        const line = (lines[index] as string).replace(/\r$/, '');
        if (!regex.test(line)) continue;
        if (matches.length >= maxResults) {
          limited = true;
          return;
        }
        const text = line.length > MAX_GREP_LINE_LENGTH ? `${line.slice(0, MAX_GREP_LINE_LENGTH)}…` : line;
        matches.push(`${path}:${index + 1}: ${text}`);
      }
    };

    try {
      let isFile = false;
      try {
        await context.worktree.list(start);
      } catch (error) {
        if (errorCode(error) !== 'ENOTDIR') throw error;
        isFile = true;
      }
      if (isFile) {
        const content = await context.worktree.readFile(start);
        searchText(start, Buffer.byteLength(content, 'utf8') > MAX_GREP_FILE_BYTES ? null : content);
      } else {
        // The walk holds each directory open and reads its files through it (SEC-4).
        for await (const file of walkFiles(context.worktree, start, context.signal)) {
          if (limited) break;
          if (!include(file.relativePath)) continue;
          let content: string | null;
          try {
            content = await file.readText(MAX_GREP_FILE_BYTES);
          } catch (error) {
            // A symlink listed in the tree that leads outside, a pipe, or a file that vanished: skip it, keep searching.
            if (errorCode(error) === undefined) throw error;
            continue;
          }
          searchText(file.path, content);
        }
      }
    } catch (error) {
      return fileErrorResult(error, start);
    }
    if (matches.length === 0) return ok(`No matches for /${input.pattern}/ in ${filesSearched} file${filesSearched === 1 ? '' : 's'}.`, { matches: 0 });
    const more = limited ? `\n[stopped at ${maxResults} matches; narrow the pattern, path or glob]` : '';
    return ok(matches.join('\n') + more, { matches: matches.length, filesSearched, limited });
  },
});
