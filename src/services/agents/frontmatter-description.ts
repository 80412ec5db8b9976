import { parse as parseYaml } from 'yaml';

/** How many distinct frontmatter texts keep their parsed description; the oldest is dropped past it. */
const CACHE_SIZE = 500;

const descriptions = new Map<string, string | null>();

/**
 * The `description` of a SKILL.md frontmatter block (null when it has none or is not valid YAML).
 * Every run's prompt lists its agent's skills with their descriptions (SKL-1/SKL-2), and parsing the
 * YAML was a measurable share of a tool turn's CPU (issue 11): the result is kept per frontmatter
 * text, so an edited SKILL.md (different text) is parsed again and nothing stale is ever served.
 */
export function frontmatterDescription(frontmatter: string): string | null {
  const cached = descriptions.get(frontmatter);
  if (cached !== undefined) return cached;
  let description: string | null = null;
  try {
    const parsed = parseYaml(frontmatter) as { description?: unknown } | null;
    description = typeof parsed?.description === 'string' ? parsed.description : null;
  } catch {
    description = null;
  }
  descriptions.set(frontmatter, description);
  if (descriptions.size > CACHE_SIZE) descriptions.delete(descriptions.keys().next().value!);
  return description;
}
