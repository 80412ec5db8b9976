import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { AgentAcpCommand, KNOWN_ACP_AGENTS, SHELL_PROGRAMS } from '../../schemas/agent-acp-command.js';

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
    .refine((value) => !SHELL_PROGRAMS.has(basename(value).toLowerCase()), 'must be the agent program itself, not a shell or launcher'),
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

/** The Control Center's own `node_modules` (the nearest one above this module), where known ACP agents are installed. */
function ownNodeModules(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'node_modules');
    if (existsSync(join(candidate, '.bin'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** An agent's stored command made runnable: the program as an absolute path, plus what the sandbox must show read-only. */
export interface ResolvedAcpCommand extends AcpCommand {
  readOnlyPaths: string[];
}

/**
 * The command an agent's own `acpCommand` names (RLY-7), validated again (the row may predate a
 * stricter rule): a {@link KNOWN_ACP_AGENTS} name is found only in the Control Center's
 * `node_modules/.bin` — never on the run's PATH — and followed to its real file; an absolute path is
 * used as the operator set it. A known agent that is not installed fails the run, naming the field.
 */
export function resolveAgentAcpCommand(stored: unknown, nodeModules: string | null = ownNodeModules()): ResolvedAcpCommand {
  const parsed = AgentAcpCommand.safeParse(stored);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AcpCommandError(`acpCommand.${issue.path.join('.')}: ${issue.message}`);
  }
  const { command, args } = parsed.data;
  if (!(KNOWN_ACP_AGENTS as readonly string[]).includes(command)) return { command, args, readOnlyPaths: [dirname(command)] };
  const link = nodeModules ? join(nodeModules, '.bin', command) : null;
  if (!link || !existsSync(link)) throw new AcpCommandError(`acpCommand.command: the ACP agent "${command}" is not installed in the Control Center's node_modules/.bin`);
  // The bin entry is a link into its package, which loads its dependencies from the same node_modules.
  return { command: realpathSync(link), args, readOnlyPaths: [realpathSync(nodeModules!)] };
}
