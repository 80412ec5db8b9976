/**
 * The pipeline editor's model (PIPE-1): the definition itself, as the API takes it, edited in place.
 * The form changes the common fields and leaves every other field as it is, so a definition written in
 * the text view (outputs, retries, time limits…) survives a round through the form unchanged.
 */

export type JsonObject = Record<string, unknown>;
export type PipelineDraft = JsonObject & { nodes?: unknown; triggers?: unknown };

/** One entry of a select: the value the definition holds and the words a person reads. */
export interface Choice {
  value: string;
  label: string;
}

/** The kinds of step a person may author (plan steps come only from approved plans), in their words. */
export const STEP_KINDS: readonly Choice[] = [
  { value: 'promptAgent', label: 'Ask an agent' },
  { value: 'human.gate', label: 'Wait for a person’s approval' },
  { value: 'condition', label: 'Check a condition' },
  { value: 'bashScript', label: 'Run a script' },
  { value: 'messaging.createSpace', label: 'Open a room' },
  { value: 'team.dispatch', label: 'Hand to a team' },
  { value: 'ticketWork', label: 'Work on a ticket' },
  { value: 'synthesis', label: 'Combine into a structured answer' },
];

export const TRIGGER_KINDS: readonly Choice[] = [
  { value: 'manual', label: 'By hand (Run now, the API)' },
  { value: 'schedule', label: 'On a schedule' },
  { value: 'webhook', label: 'A signed webhook' },
  { value: 'event', label: 'When something happens' },
];

export const TRIGGER_EVENTS: readonly Choice[] = [
  { value: 'plan.approved', label: 'A plan is approved' },
  { value: 'review.finalized', label: 'A review is published' },
  { value: 'ticket.done', label: 'A ticket is done' },
];

export const ROOM_MODES: readonly Choice[] = [
  { value: 'review', label: 'Review (the default)' },
  { value: 'chat', label: 'Chat' },
  { value: 'plan', label: 'Plan' },
];

export const TEAM_STRATEGIES: readonly Choice[] = [
  { value: 'allParallel', label: 'Everyone at once' },
  { value: 'manager', label: 'The lead hands parts out' },
];

/** The fields each kind needs besides the common ones, with what a new step starts with. */
const KIND_FIELDS: Record<string, JsonObject> = {
  promptAgent: { agentId: '', prompt: '' },
  'human.gate': { prompt: '' },
  condition: { expression: '' },
  bashScript: { script: '' },
  'messaging.createSpace': { name: '', extras: {}, memberAgentIds: [] },
  'team.dispatch': { teamId: '', strategy: 'allParallel', prompt: '' },
  ticketWork: { ticketId: '', agentId: '', prompt: '' },
  synthesis: { agentId: '', prompt: '' },
};

/** What every kind of step may carry: kept when the kind changes. */
const COMMON_FIELDS = ['key', 'title', 'dependsOn', 'outputKey', 'outputSchema', 'retries', 'timeoutMs', 'continueOnFail', 'idempotent'];

export function kindNeeds(type: string, field: string): boolean {
  return field in (KIND_FIELDS[type] ?? {});
}

export function newPipelineDraft(firstAgentId: string): PipelineDraft {
  return { name: '', triggers: [{ type: 'manual' }], nodes: [{ key: 'step-1', type: 'promptAgent', agentId: firstAgentId, prompt: '' }] };
}

export function nodesOf(draft: PipelineDraft): JsonObject[] {
  return Array.isArray(draft.nodes) ? draft.nodes.map((node) => (node !== null && typeof node === 'object' && !Array.isArray(node) ? (node as JsonObject) : {})) : [];
}

export function triggersOf(draft: PipelineDraft): JsonObject[] {
  // An omitted list means "by hand" on the server too.
  if (draft.triggers === undefined) return [{ type: 'manual' }];
  return Array.isArray(draft.triggers) ? draft.triggers.map((trigger) => (trigger !== null && typeof trigger === 'object' ? (trigger as JsonObject) : {})) : [];
}

export function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

/** `fields` set on the draft itself; an empty optional text is dropped rather than sent as "". */
export function withFields(draft: PipelineDraft, fields: JsonObject): PipelineDraft {
  const next: PipelineDraft = { ...draft, ...fields };
  if (next.description === '') delete next.description;
  return next;
}

export function withNode(draft: PipelineDraft, index: number, change: (node: JsonObject) => JsonObject): PipelineDraft {
  return { ...draft, nodes: nodesOf(draft).map((node, position) => (position === index ? change(node) : node)) };
}

export function withNodeField(draft: PipelineDraft, index: number, field: string, value: unknown): PipelineDraft {
  return withNode(draft, index, (node) => {
    const next = { ...node, [field]: value };
    if (field === 'title' && value === '') delete next.title;
    return next;
  });
}

/** A step renamed: every `dependsOn` naming the old name follows, so renaming never breaks the graph. */
export function withNodeKey(draft: PipelineDraft, index: number, key: string): PipelineDraft {
  const old = text(nodesOf(draft)[index]?.key);
  return {
    ...draft,
    nodes: nodesOf(draft).map((node, position) => {
      if (position === index) return { ...node, key };
      const dependsOn = stringList(node.dependsOn);
      return old !== '' && dependsOn.includes(old) ? { ...node, dependsOn: dependsOn.map((name) => (name === old ? key : name)) } : node;
    }),
  };
}

/** A step of another kind: the common fields and the shared ones (prompt, agent) stay, the rest starts fresh. */
export function withNodeKind(draft: PipelineDraft, index: number, type: string): PipelineDraft {
  return withNode(draft, index, (node) => {
    const next: JsonObject = { type };
    for (const field of COMMON_FIELDS) if (node[field] !== undefined) next[field] = node[field];
    for (const [field, initial] of Object.entries(KIND_FIELDS[type] ?? {})) next[field] = node[field] !== undefined && typeof node[field] === typeof initial ? node[field] : initial;
    return next;
  });
}

export function withNewNode(draft: PipelineDraft, firstAgentId: string): PipelineDraft {
  const nodes = nodesOf(draft);
  const taken = new Set(nodes.map((node) => text(node.key)));
  let number = nodes.length + 1;
  while (taken.has(`step-${number}`)) number += 1;
  const previous = text(nodes.at(-1)?.key);
  // A new step follows the last one by default: pipelines are mostly chains.
  const node: JsonObject = { key: `step-${number}`, type: 'promptAgent', agentId: firstAgentId, prompt: '', ...(previous ? { dependsOn: [previous] } : {}) };
  return { ...draft, nodes: [...nodes, node] };
}

/** A step removed, and with it every `dependsOn` entry that named it. */
export function withoutNode(draft: PipelineDraft, index: number): PipelineDraft {
  const removed = text(nodesOf(draft)[index]?.key);
  return {
    ...draft,
    nodes: nodesOf(draft)
      .filter((_, position) => position !== index)
      .map((node) => (stringList(node.dependsOn).includes(removed) ? { ...node, dependsOn: stringList(node.dependsOn).filter((name) => name !== removed) } : node)),
  };
}

export function withTrigger(draft: PipelineDraft, index: number, trigger: JsonObject | null): PipelineDraft {
  const triggers = triggersOf(draft);
  if (trigger === null) return { ...draft, triggers: triggers.filter((_, position) => position !== index) };
  return { ...draft, triggers: index >= triggers.length ? [...triggers, trigger] : triggers.map((entry, position) => (position === index ? trigger : entry)) };
}

/** A trigger of a kind, with what that kind needs filled in. */
export function newTrigger(type: string): JsonObject {
  if (type === 'schedule') return { type, cron: '0 9 * * 1-5' };
  if (type === 'event') return { type, event: 'ticket.done' };
  return { type };
}

/** The text view's contents: the definition as the API takes it. */
export function draftText(draft: PipelineDraft): string {
  return `${JSON.stringify(draft, null, 2)}\n`;
}

/** The text view read back: the definition, or why it is not one. */
export function parseDraftText(source: string): { draft: PipelineDraft } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (error) {
    return { problem: `This is not valid JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problem: 'The definition must be one JSON object, like { "name": …, "nodes": [ … ] }.' };
  return { draft: value as PipelineDraft };
}
