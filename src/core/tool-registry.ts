import { WORLD_CHANGING_EFFECT_CLASSES } from './effect-classes.js';
import { ALL_PINNED_TOOLS } from './capability-profiles.js';
import { validateToolDescriptor, type ToolDescriptor } from './tool-descriptor.js';

const PINNED: ReadonlySet<string> = new Set(ALL_PINNED_TOOLS);
const WORLD_CHANGING: ReadonlySet<string> = new Set(WORLD_CHANGING_EFFECT_CLASSES);

/**
 * Checks a whole tool registry: every descriptor (POL-2), unique names, and the CAP-6 invariant that a
 * pinned verb changes nothing in the world. Pinned verbs survive every filter and every dial, so a
 * pinned verb that wrote the worktree would punch a hole through read-only modes (CAP-4, CAP-5).
 * Returns every problem found (empty when valid).
 */
export function validateToolRegistry(registry: readonly ToolDescriptor[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const tool of registry) {
    problems.push(...validateToolDescriptor(tool));
    if (seen.has(tool.name)) problems.push(`${tool.name}: registered twice`);
    seen.add(tool.name);
    if (PINNED.has(tool.name)) {
      if (tool.writesWorktree) problems.push(`${tool.name}: a pinned verb must not write the worktree (CAP-6)`);
      const worldChanging = tool.effects.filter((effect) => WORLD_CHANGING.has(effect));
      if (worldChanging.length > 0) {
        problems.push(`${tool.name}: a pinned verb must not declare ${worldChanging.join(', ')} (CAP-6)`);
      }
    }
  }
  return problems;
}
