import { z } from 'zod';
import { AgentAcpCommand } from './agent-acp-command.js';
import { IsoTime, Slug, withoutControlCharacters } from './common.js';

/** Derived on every read from the newest run logs; never stored (AG-3). */
export const AgentState = z.enum(['neverRun', 'running', 'failed', 'blocked', 'idle']);
export type AgentState = z.infer<typeof AgentState>;

export const SkillName = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be letters, digits, dots, dashes or underscores');

/** Adapters an agent can run on; null is the built-in harness (AG-1, ADP-1). */
export const AdapterId = z.enum(['claude-code', 'claude-agent-sdk', 'deepseek', 'codex', 'acp', 'copilot', 'copilot-extension', 'grok', 'cursor', 'openai-image']);
export type AdapterId = z.infer<typeof AdapterId>;

export const SilenceTimeoutMinutes = z.number().int('must be a whole number').min(1, 'must be at least 1').max(240, 'must be at most 240');

/** Every AG-1 field an operator can set. */
const agentFields = {
  name: Slug,
  title: withoutControlCharacters(z.string().max(200)),
  persona: z.string().max(20_000),
  systemPrompt: z.string().max(50_000).nullable(),
  skills: z.array(SkillName).max(100),
  adapterId: AdapterId.nullable(),
  modelId: z.string().min(1).max(200).nullable(),
  effort: z.string().min(1).max(40).nullable(),
  contextSize: z.number().int('must be a whole number').min(1_000, 'must be at least 1000 tokens').max(10_000_000).nullable(),
  silenceTimeoutMinutes: SilenceTimeoutMinutes.nullable(),
  reportsTo: z.string().nullable(),
  /** RLY-7: the ACP agent an `acp` agent runs (program + literal args, never a shell line). */
  acpCommand: AgentAcpCommand.nullable(),
};

/** Creating a blank agent: every field optional, as the settings screen's "New agent" does. */
export const CreateAgentBody = z.strictObject(agentFields).partial();
export type CreateAgentBody = z.infer<typeof CreateAgentBody>;

export const UpdateAgentBody = z.strictObject(agentFields).partial();
export type UpdateAgentBody = z.infer<typeof UpdateAgentBody>;

export const Agent = z.object({
  id: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  title: z.string(),
  persona: z.string(),
  systemPrompt: z.string().nullable(),
  skills: z.array(z.string()),
  adapterId: z.string().nullable(),
  modelId: z.string().nullable(),
  effort: z.string().nullable(),
  contextSize: z.number().nullable(),
  silenceTimeoutMinutes: z.number().nullable(),
  reportsTo: z.string().nullable(),
  acpCommand: z.object({ command: z.string(), args: z.array(z.string()) }).nullable(),
  state: AgentState,
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type Agent = z.infer<typeof Agent>;
