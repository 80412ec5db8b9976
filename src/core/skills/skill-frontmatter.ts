import { parse as parseYaml } from 'yaml';

/** The parsed frontmatter of a SKILL.md (Agent Skills format). Every value is untrusted display data (SKL-3). */
export interface SkillFrontmatter {
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata?: Record<string, string>;
  /** Space-separated tool names in the file; kept as the list. */
  allowedTools?: string[];
}

/** A SKILL.md split into its frontmatter and its body (the directive text loaded on demand, SKL-2). */
export interface ParsedSkillFile {
  frontmatter: SkillFrontmatter;
  body: string;
}

/** Why a SKILL.md is not a valid skill: `field` names the frontmatter key (or `frontmatter` for the block). */
export class SkillFormatError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`SKILL.md ${field === 'frontmatter' ? 'frontmatter' : `field '${field}'`}: ${message}`);
    this.name = 'SkillFormatError';
  }
}

export const SKILL_NAME_MAX = 64;
export const SKILL_DESCRIPTION_MAX = 1024;
export const SKILL_COMPATIBILITY_MAX = 500;
/** Lowercase letters and digits in groups joined by single hyphens; no leading, trailing or double hyphen. */
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Checks a skill name against the Agent Skills rule; returns the problem or null. */
export function skillNameProblem(name: unknown): string | null {
  if (typeof name !== 'string') return 'must be a string';
  if (name.length < 1 || name.length > SKILL_NAME_MAX) return `must be 1–${SKILL_NAME_MAX} characters (got ${name.length})`;
  if (!SKILL_NAME.test(name)) return 'may hold only lowercase letters, digits and single hyphens, not at the start or end';
  return null;
}

/**
 * Parses and validates a SKILL.md (SKL-2, SKL-3). `folderName`, when given, must equal `name`: the
 * folder is how every runner finds the skill, so a mismatch would load a different skill than the
 * one scanned. Unknown top-level keys are tolerated (other tools add their own) but never surfaced.
 */
export function parseSkillFile(text: string, folderName?: string): ParsedSkillFile {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const match = /^---\n([\s\S]*?)\n---(?:\n|$)/.exec(normalized);
  if (!match) throw new SkillFormatError('frontmatter', 'the file must start with a YAML block between "---" lines');
  let raw: unknown;
  try {
    raw = parseYaml(match[1]!, { maxAliasCount: 0 });
  } catch (error) {
    throw new SkillFormatError('frontmatter', `is not valid YAML (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new SkillFormatError('frontmatter', 'must be a YAML mapping');
  const data = raw as Record<string, unknown>;

  const nameProblem = skillNameProblem(data.name);
  if (data.name === undefined) throw new SkillFormatError('name', 'is required');
  if (nameProblem) throw new SkillFormatError('name', nameProblem);
  const name = data.name as string;
  if (folderName !== undefined && folderName !== name) throw new SkillFormatError('name', `must equal the folder name '${folderName}' (got '${name}')`);

  if (data.description === undefined) throw new SkillFormatError('description', 'is required');
  if (typeof data.description !== 'string' || data.description.trim() === '') throw new SkillFormatError('description', 'must be a non-empty string');
  if (data.description.length > SKILL_DESCRIPTION_MAX) throw new SkillFormatError('description', `must be at most ${SKILL_DESCRIPTION_MAX} characters (got ${data.description.length})`);

  const frontmatter: SkillFrontmatter = { name, description: data.description };
  if (data.license !== undefined) {
    if (typeof data.license !== 'string') throw new SkillFormatError('license', 'must be a string');
    frontmatter.license = data.license;
  }
  if (data.compatibility !== undefined) {
    if (typeof data.compatibility !== 'string' || data.compatibility.length === 0 || data.compatibility.length > SKILL_COMPATIBILITY_MAX) {
      throw new SkillFormatError('compatibility', `must be a string of 1–${SKILL_COMPATIBILITY_MAX} characters`);
    }
    frontmatter.compatibility = data.compatibility;
  }
  if (data.metadata !== undefined) {
    if (!data.metadata || typeof data.metadata !== 'object' || Array.isArray(data.metadata)) throw new SkillFormatError('metadata', 'must be a mapping of string keys to string values');
    const metadata: Record<string, string> = {};
    for (const [key, value] of Object.entries(data.metadata as Record<string, unknown>)) {
      if (typeof value !== 'string') throw new SkillFormatError('metadata', `value of '${key}' must be a string`);
      metadata[key] = value;
    }
    frontmatter.metadata = metadata;
  }
  if (data['allowed-tools'] !== undefined) {
    const tools = data['allowed-tools'];
    if (typeof tools !== 'string') throw new SkillFormatError('allowed-tools', 'must be a space-separated string');
    frontmatter.allowedTools = tools.split(/\s+/).filter(Boolean);
  }
  return { frontmatter, body: normalized.slice(match[0].length).replace(/^\n+/, '') };
}
