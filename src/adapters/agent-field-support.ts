/**
 * TRUTH-1: which agent fields and space settings a transport honours, and how each reaches its
 * runtime. A field a transport does not list is refused by the API (400 naming the field and the
 * transport) instead of being stored and silently dropped; the agent editor and the composer show
 * only what is listed. Each value is the sentence the API and the web show ("how"), never a flag
 * without a reason.
 */

/** Agent fields whose effect depends on the transport (name, title, reportsTo … apply everywhere). */
export const TRANSPORT_AGENT_FIELDS = ['modelId', 'effort', 'contextSize', 'persona', 'systemPrompt', 'skills'] as const;
export type TransportAgentField = (typeof TRANSPORT_AGENT_FIELDS)[number];

/** Space settings whose effect depends on the transport of the space's default agent. */
export const TRANSPORT_SPACE_SETTINGS = ['autonomy'] as const;
export type TransportSpaceSetting = (typeof TRANSPORT_SPACE_SETTINGS)[number];

export interface HonouredSettings {
  /** Field → how the transport applies it. A field absent here is refused. */
  readonly agentFields: Readonly<Partial<Record<TransportAgentField, string>>>;
  /**
   * For `effort`: the model whose vocabulary an agent naming no model is checked against (the model
   * the transport runs when none is named); absent, the built-in harness's default model.
   */
  readonly effortDefaultModelId?: string;
  /** Space setting → how the transport applies it. Absent: only the default value is accepted. */
  readonly spaceSettings: Readonly<Partial<Record<TransportSpaceSetting, string>>>;
}

/** How the assembled system prompt carries persona, instructions and skills on every transport that takes a prompt. */
export const PROMPT_FIELDS = {
  persona: 'part of the system prompt the runtime is given',
  systemPrompt: 'part of the system prompt the runtime is given',
  skills: 'the scanned skills are offered to the runtime (see its skills row)',
} as const satisfies Partial<Record<TransportAgentField, string>>;

/** A field's "empty" value: what an agent that never set it stores; only this is accepted where the field is not honoured. */
export function isUnsetAgentField(field: TransportAgentField, value: unknown): boolean {
  if (field === 'persona') return value === '' || value === undefined;
  if (field === 'skills') return value === undefined || (Array.isArray(value) && value.length === 0);
  return value === null || value === undefined;
}

/** The API's words for a field the transport does not honour. */
export function refusedFieldProblem(field: string, transportLabel: string, adapterId: string): string {
  return `${transportLabel} (\`${adapterId}\`) does not honour \`${field}\`: its runtime has no setting it could be applied to, so it is refused rather than stored and ignored`;
}
