/**
 * MODE-4: `/plan` arms plan mode; `/plan <request>` arms it and sends the rest. The text `/plan`
 * never travels as message text. `/skill:<name>` (SKL-2) is left for the skills feature to read.
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
