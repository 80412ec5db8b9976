/** The parts of a built-in harness system prompt (HAR-1), as plain data. */
export interface SystemPromptParts {
  agentName: string;
  title: string;
  persona: string;
  /** The agent's own instructions: a section of their own, never a replacement for the rest (AG-1). */
  systemPrompt: string | null;
  /** The linked skills the agent can load (SKL-1) with each one's frontmatter description (SKL-2). */
  skills: Array<{ name: string; description: string | null }>;
  /** The mode's generated capability preamble plus its hand-written guidance (CAP-1e). */
  modeBlock: string;
  /** Index of repo skills available in the worktree (SKL-4, SKL-5); empty when none. */
  repoSkillsIndex?: string;
  /** Facts about where the agent works (worktree path, space name). */
  environment?: string;
}

/** A text on one line: line breaks and other control characters become single spaces. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').replace(/ {2,}/g, ' ').trim();
}

/**
 * Assembles the system prompt in a fixed order: identity, persona, Agent instructions, Skills, the
 * mode block, repo skills, environment. Empty sections are left out so the model never sees an
 * empty heading.
 */
export function assembleSystemPrompt(parts: SystemPromptParts): string {
  const sections: string[] = [];
  sections.push(
    `You are ${parts.agentName}${parts.title ? `, ${parts.title}` : ''}, an agent of a team working through the Control Center.`,
  );
  if (parts.persona.trim()) sections.push(`# Persona\n\n${parts.persona.trim()}`);
  if (parts.systemPrompt?.trim()) sections.push(`# Agent instructions\n\n${parts.systemPrompt.trim()}`);
  if (parts.skills.length > 0) {
    // One line per skill: a description's line breaks and control characters are flattened so it
    // cannot open a heading or a section of its own in the prompt.
    const lines = parts.skills.map((skill) => `- ${skill.name}${skill.description ? `: ${oneLine(skill.description)}` : ''}`);
    sections.push(`# Skills\n\n${lines.join('\n')}`);
  }
  if (parts.modeBlock.trim()) sections.push(parts.modeBlock.trim());
  if (parts.repoSkillsIndex?.trim()) sections.push(`# Repository skills\n\n${parts.repoSkillsIndex.trim()}`);
  if (parts.environment?.trim()) sections.push(`# Environment\n\n${parts.environment.trim()}`);
  return sections.join('\n\n');
}
