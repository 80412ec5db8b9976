/**
 * MODE-4: `/plan` arms plan mode; `/plan <request>` arms it and sends the rest. The text `/plan`
 * never travels as message text. `/skill:<name>` (SKL-2) is read by {@link parseSkillCommand}.
 */
export interface ParsedComposerText {
  armPlan: boolean;
  /** What is sent to the agent; empty when nothing is sent. */
  text: string;
}

export function parseComposerText(raw: string): ParsedComposerText {
  const match = /^\s*\/plan(?:\s+([\s\S]*))?$/.exec(raw);
  if (!match) return { armPlan: false, text: raw };
  return { armPlan: true, text: (match[1] ?? '').trim() };
}

/** `@name rest` at the start of a message addresses an agent; returns the name and the rest. */
export function parseMention(text: string): { agentName: string | null; rest: string } {
  const match = /^\s*@([a-z0-9](?:[a-z0-9-]*[a-z0-9])?)\b\s*([\s\S]*)$/.exec(text);
  return match ? { agentName: match[1]!, rest: match[2]! } : { agentName: null, rest: text };
}

/**
 * SKL-2: `/skill:<name> rest` at the start of a message loads that skill's body as the turn's
 * directive. Returns the name as typed (resolved case-insensitively later) and the rest, or null when
 * the message does not start with the command. `/skill:<repo>:<name>` keeps the repo part in `repo`.
 */
export function parseSkillCommand(text: string): { repo: string | null; name: string; rest: string } | null {
  const match = /^\s*\/skill:(?:([A-Za-z0-9._-]+):)?([^\s:]*)(?:\s+([\s\S]*))?$/.exec(text);
  if (!match) return null;
  return { repo: match[1] ?? null, name: match[2]!, rest: (match[3] ?? '').trim() };
}

/** The prompt of a `/skill:` turn: the skill body as the directive, then what the operator wrote. */
export function skillDirectivePrompt(skill: { name: string; body: string }, rest: string): string {
  const request = rest ? `\n\n---\n\nThe operator's message:\n\n${rest}` : '';
  return `Follow the skill "${skill.name}" for this turn. Its instructions:\n\n${skill.body.trim()}${request}`;
}

/** CTX-1: `/compact [focus]` compacts the conversation now; `/context` shows what fills the window. */
export type ContextCommand = { command: 'compact'; focus: string | null } | { command: 'context' };

export function parseContextCommand(text: string): ContextCommand | null {
  const compact = /^\s*\/compact(?:\s+([\s\S]*))?$/.exec(text);
  if (compact) return { command: 'compact', focus: compact[1]?.trim() || null };
  return /^\s*\/context\s*$/.test(text) ? { command: 'context' } : null;
}
