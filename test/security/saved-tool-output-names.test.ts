/**
 * CTX-2, security: a tool output too long for the model is saved in the run's scratch folder under
 * the tool call's id — an id the model chose. Whatever the id holds (dots, slashes, backslashes,
 * NUL), the file lands directly in `.control-center/tool-output/<run>/` and nowhere else.
 */
import { describe, expect, it } from 'vitest';
import { keepLargeOutput, TOOL_OUTPUT_BUDGET_CHARS, TOOL_OUTPUT_FOLDER, type OutputFiles } from '../../src/adapters/builtin/saved-tool-output.js';

function recordingFiles(): OutputFiles & { written: string[] } {
  const written: string[] = [];
  return {
    written,
    async writeFile(path) {
      written.push(path);
    },
    async exists() {
      return false;
    },
  };
}

describe('saved tool output names (CTX-2, security)', () => {
  it('a hostile call id or run id cannot move the saved file out of the run folder', async () => {
    const long = { content: 'x'.repeat(TOOL_OUTPUT_BUDGET_CHARS + 1) } as Parameters<typeof keepLargeOutput>[3];
    for (const callId of ['../../../etc/passwd', '..', 'a/../../b', 'a\\..\\b', 'id\u0000.txt', '/abs/path', '.git/hooks/pre-commit']) {
      const files = recordingFiles();
      const result = await keepLargeOutput(files, 'run_1/../..', callId, long);
      const saved = files.written.find((path) => path.startsWith(`${TOOL_OUTPUT_FOLDER}/`))!;
      const rest = saved.slice(TOOL_OUTPUT_FOLDER.length + 1).split('/');
      expect(rest).toHaveLength(2);
      for (const segment of rest) {
        expect(segment).toMatch(/^[A-Za-z0-9_.-]+$/);
        expect(segment.startsWith('.')).toBe(false);
      }
      expect(result.content).toContain(`saved whole at ${saved}`);
    }
  });
});
