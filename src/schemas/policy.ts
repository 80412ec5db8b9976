import { z } from 'zod';
import { EFFECT_CLASSES } from '../core/effect-classes.js';
import { domainPatternProblems, normalizeHost } from '../core/policy/domain-pattern.js';
import { IsoTime } from './common.js';
import { AutonomySchema, ModeSchema } from './space.js';

export const EffectClassSchema = z.enum(EFFECT_CLASSES);
export const DecisionSchema = z.enum(['allow', 'ask', 'deny']);
export const RuleScope = z.enum(['space', 'agent', 'workspace']);

const ClassMatch = z.strictObject({ kind: z.literal('class'), effectClass: EffectClassSchema });
const CommandMatch = z.strictObject({ kind: z.literal('command'), prefix: z.string().trim().min(1, 'must not be empty').max(500) });
const FingerprintMatch = z.strictObject({ kind: z.literal('fingerprint'), fingerprint: z.string().min(1).max(200) });

/** TOOL-1: the host a network call reaches — `example.com`, `*.example.com` or `*` (see core/policy/domain-pattern.ts). */
export const RuleMatch = z.discriminatedUnion('kind', [ClassMatch, CommandMatch, z.strictObject({ kind: z.literal('domain'), domain: z.string() }), FingerprintMatch]);
export type RuleMatch = z.infer<typeof RuleMatch>;

/** A match as an operator writes it: a domain pattern is checked and stored normalized (lower case, no trailing dot). */
const RuleMatchInput = z.discriminatedUnion('kind', [
  ClassMatch,
  CommandMatch,
  z.strictObject({
    kind: z.literal('domain'),
    domain: z
      .string()
      .max(300)
      .superRefine((domain, context) => {
        for (const problem of domainPatternProblems(domain)) context.addIssue({ code: 'custom', message: problem });
      })
      .transform(normalizeHost),
  }),
  FingerprintMatch,
]);

/** A policy rule (POL-3): at a scope, for an effect class, a command prefix, a domain (TOOL-1) or a remembered action. */
export const PolicyRule = z.object({
  id: z.string(),
  scope: RuleScope,
  scopeId: z.string(),
  match: RuleMatch,
  decision: DecisionSchema,
  note: z.string().nullable(),
  createdAt: IsoTime,
  /** TEAM-3: the person who added it (by hand, or by remembering a choice); null for rules older than people. */
  createdBy: z.string().nullable(),
});
export type PolicyRule = z.infer<typeof PolicyRule>;

export const CreateRuleBody = z.strictObject({
  scope: RuleScope,
  /** The space or agent id; omitted for workspace scope (the workspace itself). */
  scopeId: z.string().min(1).optional(),
  match: RuleMatchInput,
  decision: DecisionSchema,
  note: z.string().max(500).optional(),
});
export type CreateRuleBody = z.infer<typeof CreateRuleBody>;

export const ProbeBody = z
  .strictObject({
    spaceId: z.string().min(1).optional(),
    agentId: z.string().min(1).optional(),
    mode: ModeSchema.optional(),
    autonomy: AutonomySchema.optional(),
    command: z.string().min(1).max(100_000).optional(),
    /** TOOL-1: what would a `web_fetch` of this URL be told (domain rules included)? */
    url: z.string().min(1).max(8_000).optional(),
    action: z
      .strictObject({
        classes: z.array(EffectClassSchema).max(13),
        summary: z.string().max(2_000).default(''),
        tier: z.enum(['read', 'write', 'execute']).optional(),
        writesWorktree: z.boolean().optional(),
        toolName: z.string().optional(),
      })
      .optional(),
  })
  .refine((body) => [body.command, body.action, body.url].filter((value) => value !== undefined).length === 1, {
    message: 'give exactly one of command, action or url',
    path: ['command'],
  });
export type ProbeBody = z.infer<typeof ProbeBody>;

/** Which scope's rule (or default) decided an action (POL-3); shown beside probes and tool calls. */
export const DecidedBy = z.object({ scope: z.string(), ruleId: z.string().nullable() });
export type DecidedBy = z.infer<typeof DecidedBy>;

export const ProbeResult = z.object({
  decision: DecisionSchema,
  classes: z.array(z.string()),
  decidedBy: DecidedBy,
  explanation: z.string(),
  mode: ModeSchema,
  autonomy: AutonomySchema,
  classification: z.unknown().optional(),
  /** For a URL probe (TOOL-1): a rule names this exact host, so web_fetch may reach it even at a loopback or private address. */
  hostNamedByRule: z.boolean().optional(),
});
export type ProbeResult = z.infer<typeof ProbeResult>;
