import type { ToolResult } from '../../tools/define-tool.js';

/** A tool result longer than this goes to a file; the model gets its head, tail and the path (CTX-2). */
export const TOOL_OUTPUT_BUDGET_CHARS = 16_000;
const HEAD_CHARS = 4_000;
const TAIL_CHARS = 4_000;

/**
 * Where saved outputs live, inside the checkout so the `read` tool reaches them. The folder's own
 * `.gitignore` (`*`) keeps them out of git: out of `git status`, commits and checkpoints alike.
 */
export const TOOL_OUTPUT_FOLDER = '.control-center/tool-output';
const IGNORE_FILE = '.control-center/.gitignore';

/** The confined file access of the run's worktree: writes cannot leave it, whatever links the agent made. */
export interface OutputFiles {
  writeFile(path: string, content: string): Promise<void>;
  exists(path: string): Promise<boolean>;
}

/**
 * CTX-2: a tool output over the budget is kept whole in the run's scratch folder in the worktree and
 * the model gets its head, its tail and the path to read the rest. A result that cannot be saved is
 * cut the same way and says why.
 */
export async function keepLargeOutput(files: OutputFiles, runId: string, callId: string, result: ToolResult): Promise<ToolResult> {
  const { content } = result;
  if (content.length <= TOOL_OUTPUT_BUDGET_CHARS) return result;
  const path = `${TOOL_OUTPUT_FOLDER}/${safeName(runId)}/${safeName(callId)}.txt`;
  let where: string;
  try {
    if (!(await files.exists(IGNORE_FILE))) await files.writeFile(IGNORE_FILE, '*\n');
    await files.writeFile(path, content);
    where = `saved whole at ${path} (read it with the read tool, offset and limit for parts)`;
  } catch (error) {
    where = `it could not be saved (${error instanceof Error ? error.message : String(error)})`;
  }
  const omitted = content.length - HEAD_CHARS - TAIL_CHARS;
  return {
    ...result,
    content: `${content.slice(0, HEAD_CHARS)}\n\n[… ${omitted} of ${content.length} characters not shown; the output is ${where} …]\n\n${content.slice(-TAIL_CHARS)}`,
  };
}

function safeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}
