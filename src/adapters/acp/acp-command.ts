import { basename, isAbsolute } from 'node:path';
import { z } from 'zod';

/**
 * Program names that would turn the configured command into a shell line (or hand the argv to
 * another program to interpret): refused, so an ACP command is always one program and its argv,
 * spawned without a shell.
 */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'csh', 'tcsh', 'fish', 'busybox', 'env', 'sudo', 'su', 'doas', 'xargs', 'eval', 'exec', 'cmd', 'cmd.exe', 'powershell', 'pwsh']);

const noNul = (value: string) => !value.includes('\0');

/**
 * The program an ACP agent runs as (RLY-7): an absolute path or a bare name looked up on the run's
 * PATH, with literal arguments. Never a shell: the command is spawned directly (`shell: false`),
 * shells and program launchers are refused by name, and no part may hold a NUL or a newline.
 */
export const AcpCommand = z.strictObject({
  command: z
    .string()
    .min(1, 'must not be empty')
    .max(4_096)
    .refine(noNul, 'must not contain NUL')
    .refine((value) => !/[\n\r]/.test(value), 'must not contain a line break')
    .refine((value) => isAbsolute(value) || !value.includes('/'), 'must be an absolute path or a bare program name')
    .refine((value) => !SHELLS.has(basename(value).toLowerCase()), 'must be the agent program itself, not a shell or launcher'),
  args: z.array(z.string().max(4_096).refine(noNul, 'must not contain NUL')).max(64).default([]),
});
export type AcpCommand = z.infer<typeof AcpCommand>;

/**
 * ACP commands per agent (by the agent's name), with `*` as the one every other agent uses. Where it
 * comes from: the transport's options, else `CONTROL_CENTER_ACP_AGENTS` in the server's environment
 * (JSON of this shape).
 */
export const AcpAgentCommands = z.record(z.string().min(1).max(64), AcpCommand);
export type AcpAgentCommands = z.infer<typeof AcpAgentCommands>;

/** The environment variable holding {@link AcpAgentCommands} as JSON. */
export const ACP_AGENTS_VARIABLE = 'CONTROL_CENTER_ACP_AGENTS';

/** A configuration that failed validation, naming the field. */
export class AcpCommandError extends Error {}

/** Validates a commands table, naming the first bad field (`<agent>.command: must …`). */
export function parseAcpAgentCommands(raw: unknown): AcpAgentCommands {
  const parsed = AcpAgentCommands.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new AcpCommandError(`ACP agent command ${issue.path.join('.') || '(root)'}: ${issue.message}`);
}

/** The command for an agent, validated: its own entry, else `*`; the environment is read only when `configured` is absent. */
export function acpCommandFor(agentName: string, configured: AcpAgentCommands | undefined, env: Record<string, string | undefined>): AcpCommand {
  let table = configured === undefined ? undefined : parseAcpAgentCommands(configured);
  if (!table) {
    const json = env[ACP_AGENTS_VARIABLE];
    if (!json) throw new AcpCommandError(`No ACP agent command is configured (set ${ACP_AGENTS_VARIABLE} to {"<agent name>": {"command": "…", "args": […]}})`);
    let raw: unknown;
    try {
      raw = JSON.parse(json);
    } catch {
      throw new AcpCommandError(`${ACP_AGENTS_VARIABLE} is not valid JSON`);
    }
    table = parseAcpAgentCommands(raw);
  }
  const entry = Object.hasOwn(table, agentName) ? table[agentName] : Object.hasOwn(table, '*') ? table['*'] : undefined;
  if (!entry) throw new AcpCommandError(`No ACP agent command is configured for agent "${agentName}"`);
  return entry;
}
