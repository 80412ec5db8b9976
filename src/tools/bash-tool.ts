import { z } from 'zod';
import { EFFECT_CLASSES, type EffectClass } from '../core/effect-classes.js';
import { defineTool, fail, ok } from './define-tool.js';

export const DEFAULT_BASH_TIMEOUT_SECONDS = 120;
export const MAX_BASH_TIMEOUT_SECONDS = 600;
/** Per stream: the head of stdout and of stderr is kept up to this many bytes, the rest dropped. */
export const BASH_MAX_OUTPUT_BYTES = 30_000;

/**
 * What a shell can do: anything. A command line can delete files, write outside the worktree (`> /tmp/x`,
 * `~/.bashrc`), commit and push, install packages, reach the network (and through it open or publish
 * PRs and write to vendor systems), read secrets, and drive the Control Center's own CLI — so the tool
 * declares every POL-2 class as its upper bound. That bound is what removes the shell from any surface
 * that denies a class (CAP-1a). Each actual call is narrower: the harness classifies the command line
 * with the policy engine before `execute` runs (POL-2 shell classification), and that classification,
 * not this list, is what allow/ask/deny rules see for a shell call.
 */
export const BASH_EFFECTS: readonly EffectClass[] = [...EFFECT_CLASSES];

export const BashInput = z.object({
  command: z.string().min(1).describe('Shell command, run with `bash -c` in the worktree root.'),
  timeoutSeconds: z
    .number()
    .positive()
    .max(MAX_BASH_TIMEOUT_SECONDS)
    .optional()
    .describe(`Stop the command after this many seconds (default ${DEFAULT_BASH_TIMEOUT_SECONDS}, at most ${MAX_BASH_TIMEOUT_SECONDS}).`),
});
export type BashInput = z.infer<typeof BashInput>;

/**
 * `bash`: runs a command in the conversation's worktree. Execute tier, every effect class (see
 * {@link BASH_EFFECTS}), `writesWorktree`. Output is capped, a timeout or abort kills the whole process
 * group, and a non-zero exit is an `isError` result the model reads.
 */
export const bashTool = defineTool({
  name: 'bash',
  description: `Run a shell command (bash) in the worktree root. Returns the exit code, stdout and stderr. Times out after ${DEFAULT_BASH_TIMEOUT_SECONDS} s unless timeoutSeconds says otherwise (max ${MAX_BASH_TIMEOUT_SECONDS}); output beyond ${BASH_MAX_OUTPUT_BYTES} bytes per stream is cut. Processes the command leaves running are stopped when it ends.`,
  parameters: BashInput,
  tier: 'execute',
  effects: [...BASH_EFFECTS],
  writesWorktree: true,
  group: 'shell',
  async execute(input, context) {
    const timeoutSeconds = input.timeoutSeconds ?? DEFAULT_BASH_TIMEOUT_SECONDS;
    const result = await context.worktree.exec(input.command, {
      timeoutMs: Math.round(timeoutSeconds * 1000),
      maxOutputBytes: BASH_MAX_OUTPUT_BYTES,
      signal: context.signal,
    });
    const parts: string[] = [];
    if (result.limitReached) parts.push(`Stopped: ${result.limitReached}; the command and every process it started were ended.`);
    else if (result.timedOut) parts.push(`Timed out after ${timeoutSeconds} s; the command and its child processes were stopped.`);
    else if (result.aborted) parts.push('Stopped: the run was cancelled.');
    else if (result.exitCode === null) parts.push(`Killed by ${result.signal ?? 'a signal'}.`);
    parts.push(`exit code: ${result.exitCode ?? 'none'}`);
    if (result.stdout !== '') parts.push(`stdout:\n${result.stdout}`);
    if (result.stderr !== '') parts.push(`stderr:\n${result.stderr}`);
    if (result.stdout === '' && result.stderr === '') parts.push('(no output)');
    if (result.truncated) parts.push(`[output cut at ${BASH_MAX_OUTPUT_BYTES} bytes per stream]`);
    const details = {
      exitCode: result.exitCode,
      signal: result.signal,
      stdout: result.stdout,
      stderr: result.stderr,
      timedOut: result.timedOut,
      truncated: result.truncated,
      aborted: result.aborted === true,
      limitReached: result.limitReached ?? null,
    };
    const content = parts.join('\n');
    return result.exitCode === 0 && !result.timedOut && !result.aborted && !result.limitReached ? ok(content, details) : fail(content, details);
  },
});
