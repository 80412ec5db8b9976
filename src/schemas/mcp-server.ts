import { z } from 'zod';
import { ABSOLUTE_PROGRAM, DOT_SEGMENT, programBaseName, SHELL_PROGRAMS, UNSAFE_ARGUMENT } from './agent-acp-command.js';
import { IsoTime } from './common.js';
import { EffectClassSchema } from './policy.js';

/**
 * An operator's MCP server (TOOL-2), by the name its tools are offered under (`mcp__<name>__<tool>`):
 * lowercase letters, digits and dashes, so the name is a valid part of a tool name for every provider.
 */
export const McpServerName = z
  .string()
  .min(1)
  .max(32, 'must be at most 32 characters')
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'must be a lowercase slug: letters, digits and dashes, not starting or ending with a dash');

/**
 * The program a stdio server runs as, validated as an ACP command is (RLY-7): an absolute path of
 * plain segments, never a shell or launcher, with literal arguments. It is spawned without a shell,
 * inside the runner sandbox with the SEC-11 limits.
 */
const McpStdioProgram = z
  .string()
  .min(1, 'must not be empty')
  .max(1024, 'must be at most 1024 characters')
  .refine((value) => ABSOLUTE_PROGRAM.test(value) && !DOT_SEGMENT.test(value), 'must be an absolute path of plain segments (letters, digits, ._@+-)')
  .refine((value) => !SHELL_PROGRAMS.has(programBaseName(value)), 'must be the server program itself, not a shell or launcher');

const McpStdioArgument = z
  .string()
  .max(4096, 'must be at most 4096 characters')
  .refine((value) => !UNSAFE_ARGUMENT.test(value), 'must be one literal argument: no control characters and no shell metacharacters (` $ ; | & < >); nothing is run through a shell');

/** A path the sandboxed stdio server may read although the sandbox hides or replaces it (a private /tmp, the home). */
const McpReadablePath = z
  .string()
  .max(1024)
  .refine((value) => ABSOLUTE_PROGRAM.test(value) && !DOT_SEGMENT.test(value), 'must be an absolute path of plain segments (letters, digits, ._@+-)');

/** Header and environment names: what HTTP and a process environment both accept. */
const SecretName = z.string().min(1).max(128).regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'must be letters, digits, dashes or underscores, not starting with a digit or dash');
const SecretValue = z.string().min(1, 'must not be empty').max(8192).refine((value) => !/[\r\n\0]/.test(value), 'must not contain a line break or NUL');

/** Per-call limits: a call past its time or an answer past its size fails that call, never the run. */
const CallTimeoutSeconds = z.number().int('must be a whole number').min(1, 'must be at least 1').max(600, 'must be at most 600');
const MaxOutputBytes = z.number().int('must be a whole number').min(1_024, 'must be at least 1024').max(4 * 1024 * 1024, 'must be at most 4194304');

const commonFields = {
  name: McpServerName,
  /** Agents (by id) that get this server's tools (TOOL-2: enabled per agent). */
  agents: z.array(z.string().min(1).max(64)).max(200).default([]),
  callTimeoutSeconds: CallTimeoutSeconds.default(60),
  maxOutputBytes: MaxOutputBytes.default(64 * 1024),
};

const stdioFields = {
  transport: z.literal('stdio'),
  command: McpStdioProgram,
  args: z.array(McpStdioArgument).max(64, 'must be at most 64 arguments').default([]),
  /** `none` (default): no network at all inside the sandbox; `host`: the host's network. */
  network: z.enum(['none', 'host']).default('none'),
  readOnlyPaths: z.array(McpReadablePath).max(16).default([]),
  /** Environment variables the server gets; write-only like model keys (read back as `set`). */
  env: z.record(SecretName, SecretValue).default({}),
};

const httpFields = {
  transport: z.literal('http'),
  url: z
    .string()
    .max(2048)
    .refine((value) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol), 'must be an http or https URL')
    .refine((value) => !URL.canParse(value) || (new URL(value).username === '' && new URL(value).password === ''), 'must not carry credentials; put them in headers'),
  /** Request headers (an Authorization token…); write-only like model keys (read back as `set`). */
  headers: z.record(SecretName, SecretValue).default({}),
};

/** Adding a server: stdio (a program) or streamable HTTP (a URL). */
export const CreateMcpServerBody = z.discriminatedUnion('transport', [z.strictObject({ ...commonFields, ...stdioFields }), z.strictObject({ ...commonFields, ...httpFields })]);
export type CreateMcpServerBody = z.infer<typeof CreateMcpServerBody>;

/**
 * Changing a server: any field of its transport; `env` and `headers` merge by name (a null removes
 * one), so a secret never has to be sent again to change something else.
 */
export const UpdateMcpServerBody = z.strictObject({
  agents: z.array(z.string().min(1).max(64)).max(200).optional(),
  callTimeoutSeconds: CallTimeoutSeconds.optional(),
  maxOutputBytes: MaxOutputBytes.optional(),
  command: McpStdioProgram.optional(),
  args: z.array(McpStdioArgument).max(64, 'must be at most 64 arguments').optional(),
  network: z.enum(['none', 'host']).optional(),
  readOnlyPaths: z.array(McpReadablePath).max(16).optional(),
  env: z.record(SecretName, SecretValue.nullable()).optional(),
  url: httpFields.url.optional(),
  headers: z.record(SecretName, SecretValue.nullable()).optional(),
});
export type UpdateMcpServerBody = z.infer<typeof UpdateMcpServerBody>;

/** One finding of the scan of a tool's description (the skill scan's rules, SEC-12). */
export const McpToolFinding = z.object({ ruleId: z.string(), severity: z.enum(['warn', 'quarantine']), message: z.string() });
export type McpToolFinding = z.infer<typeof McpToolFinding>;

/** A tool the server listed, as the operator reviews it. */
export const McpServerTool = z.object({
  /** The name the server gave it. */
  name: z.string(),
  /** The name agents call it by: `mcp__<server>__<tool>`. */
  agentToolName: z.string(),
  /** Untrusted display text from the server; shown with its findings, sent to models only when the scan passes or warns. */
  description: z.string(),
  inputSchema: z.record(z.string(), z.unknown()),
  /** The classes the operator assigned; every class until they do (so every call asks). */
  effects: z.array(EffectClassSchema),
  /** False until the operator assigned classes. */
  effectsAssigned: z.boolean(),
  findings: z.array(McpToolFinding),
  verdict: z.enum(['pass', 'warn', 'quarantine']),
});
export type McpServerTool = z.infer<typeof McpServerTool>;

/** A server as the API shows it: secrets by name only. */
export const McpServer = z.object({
  id: z.string(),
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  command: z.string().nullable(),
  args: z.array(z.string()),
  network: z.enum(['none', 'host']).nullable(),
  readOnlyPaths: z.array(z.string()),
  url: z.string().nullable(),
  /** Names of the environment variables (stdio) or headers (http) that are set; values are never read back. */
  secrets: z.record(z.string(), z.literal('set')),
  agents: z.array(z.string()),
  callTimeoutSeconds: z.number(),
  maxOutputBytes: z.number(),
  /** Null until the tools were listed once. */
  tools: z.array(McpServerTool).nullable(),
  toolsListedAt: IsoTime.nullable(),
  /** Why the last connection or listing failed; null when it worked. */
  lastError: z.string().nullable(),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type McpServer = z.infer<typeof McpServer>;

/** The classes an operator assigns to one tool. An empty list means the tool changes nothing (read level). */
export const SetMcpToolEffectsBody = z.strictObject({ effects: z.array(EffectClassSchema).max(13) });
export type SetMcpToolEffectsBody = z.infer<typeof SetMcpToolEffectsBody>;
