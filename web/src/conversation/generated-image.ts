/**
 * Which reply lines are images a provider generated (OpenAI Image, RLY-7). Only a whole line of exactly
 * `![Generated image](/api/workspaces/<this workspace>/images/<sha256>.<ext>)` counts — the server
 * writes that line itself after storing the image; any other text, including markdown an agent
 * wrote, stays text (no other URL is ever loaded).
 */
const IMAGE_LINE = /^!\[Generated image\]\(\/api\/workspaces\/([^/()\s]+)\/images\/([0-9a-f]{64}\.(?:png|jpg|webp))\)$/;

/** The stored image a reply line shows, or null when the line is ordinary text (or names another workspace). */
export function generatedImageOf(line: string, ws: string): string | null {
  const match = IMAGE_LINE.exec(line.trim());
  if (!match) return null;
  let workspace: string;
  try {
    workspace = decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
  return workspace === ws ? match[2]! : null;
}
