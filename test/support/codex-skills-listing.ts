/**
 * Reads the skills listing Codex puts in front of the model (its `<skills_instructions>` block: a
 * table of skill roots `r0`, `r1`, … and one line per available skill with its aliased `SKILL.md`
 * path), so a test can check exactly which skills Codex offered and from where.
 */
export interface CodexSkillsListing {
  /** Root alias → absolute folder. */
  roots: Record<string, string>;
  /** Each offered skill with its `SKILL.md` path, aliases expanded. */
  skills: Array<{ name: string; description: string; file: string }>;
}

/** The listing in a request's text, or null when Codex sent no skills block at all. */
export function codexSkillsListing(text: string): CodexSkillsListing | null {
  const start = text.indexOf('<skills_instructions>');
  if (start < 0) return null;
  const end = text.indexOf('</skills_instructions>', start);
  const block = text.slice(start, end < 0 ? undefined : end);
  const roots: Record<string, string> = {};
  for (const match of block.matchAll(/^- `(r\d+)` = `([^`]+)`$/gm)) roots[match[1]!] = match[2]!;
  const skills = [...block.matchAll(/^- ([a-z0-9-]+): (.*) \(file: ([^)]+)\)$/gm)].map((match) => {
    const file = match[3]!.replace(/^(r\d+)\//, (whole, alias: string) => (roots[alias] ? `${roots[alias]}/` : whole));
    return { name: match[1]!, description: match[2]!, file };
  });
  return { roots, skills };
}
