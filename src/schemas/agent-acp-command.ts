import { z } from 'zod';
import { KNOWN_ACP_AGENTS } from '../core/relay/known-acp-agents.js';

export { KNOWN_ACP_AGENTS } from '../core/relay/known-acp-agents.js';

/**
 * Program names that would turn a command into a shell line, or hand its argv to another program to
 * interpret: refused wherever an ACP command is configured, so the command is always one program and
 * its literal argv, spawned without a shell.
 */
export const SHELL_PROGRAMS: ReadonlySet<string> = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'csh', 'tcsh', 'fish', 'busybox', 'env', 'sudo', 'su', 'doas', 'xargs', 'eval', 'exec', 'cmd', 'cmd.exe', 'powershell', 'pwsh', 'nohup', 'setsid', 'timeout', 'nice', 'ionice', 'chroot', 'unshare', 'nsenter', 'script', 'expect']);

/** The last path segment, lowercased (shell names are refused case-insensitively). */
export function programBaseName(program: string): string {
  return program.slice(program.lastIndexOf('/') + 1).toLowerCase();
}

// An absolute path of plain segments: no `.`/`..` segment, no empty segment, no character a shell or a
// terminal would treat specially. A path outside this charset is a path no installed agent needs.
export const ABSOLUTE_PROGRAM = /^(?:\/[A-Za-z0-9_@+][A-Za-z0-9._@+-]*)+$/;
export const DOT_SEGMENT = /\/\.{1,2}(?:\/|$)/;
// Never interpreted (the argv goes to the program as is), but an argument holding them is a shell line
// pasted into the wrong field or an injection attempt: refused, so what is stored reads as what runs.
// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
export const UNSAFE_ARGUMENT = /[\u0000-\u001f\u007f`$;|&<>]/;

/**
 * The ACP command stored on an agent whose adapter is `acp` (RLY-7): one program and its literal
 * arguments. `command` is a {@link KNOWN_ACP_AGENTS} name (resolved in the Control Center's
 * `node_modules/.bin` at run time) or an absolute path the operator chose; shells and launchers are
 * refused by name. Set only by an operator through the agents API (agent routes are operator-only).
 */
export const AgentAcpCommand = z.strictObject({
  command: z
    .string()
    .min(1, 'must not be empty')
    .max(1024, 'must be at most 1024 characters')
    .refine(
      (value) => (KNOWN_ACP_AGENTS as readonly string[]).includes(value) || (ABSOLUTE_PROGRAM.test(value) && !DOT_SEGMENT.test(value)),
      `must be a known ACP agent (${KNOWN_ACP_AGENTS.join(', ')}) or an absolute path of plain segments (letters, digits, ._@+-)`,
    )
    .refine((value) => !SHELL_PROGRAMS.has(programBaseName(value)), 'must be the agent program itself, not a shell or launcher'),
  args: z
    .array(
      z
        .string()
        .max(4096, 'must be at most 4096 characters')
        .refine((value) => !UNSAFE_ARGUMENT.test(value), 'must be one literal argument: no control characters and no shell metacharacters (` $ ; | & < >); nothing is run through a shell'),
    )
    .max(64, 'must be at most 64 arguments')
    .default([]),
});
export type AgentAcpCommand = z.infer<typeof AgentAcpCommand>;
