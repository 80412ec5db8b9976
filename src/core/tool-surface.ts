import type { EffectClass } from './effect-classes.js';
import type { CapabilityProfile } from './capability-profiles.js';
import { tierRank, type ToolDescriptor } from './tool-descriptor.js';

/**
 * Extra narrowing on top of a profile (workspace or agent settings, a transport's own allowlist). Extra
 * rules can only remove tools: allowlists intersect, denylists and denied classes add up.
 */
export interface SurfaceRules {
  readonly allowlist?: readonly string[];
  readonly denylist?: readonly string[];
  readonly deniedEffects?: readonly EffectClass[];
}

/**
 * Builds the tool surface of a mode from its profile alone (CAP-2, HAR-3): a forbidden tool is
 * invisible, not merely refused. Filters, in order:
 * - tier above the profile's max tier → removed (CAP-3);
 * - allowlists limit tools of write tier and above; read tier reaches tools no list names (CAP-8);
 * - denylists remove whatever the tier;
 * - a tool declaring a denied effect class is removed (CAP-1a);
 * - a read-only worktree removes every tool that writes the worktree (CAP-5).
 * Pinned tools present in the registry survive every filter (CAP-6). Registry order is kept.
 */
export function buildToolSurface(
  profile: CapabilityProfile,
  registry: readonly ToolDescriptor[],
  extra: SurfaceRules = {},
): ToolDescriptor[] {
  const pinned = new Set(profile.pinnedTools);
  const maxRank = tierRank(profile.surface.maxTier);
  const allowlists = [profile.surface.allowlist, extra.allowlist ?? null].filter(
    (list): list is readonly string[] => list !== null,
  );
  const allowed = allowlists.map((list) => new Set(list));
  const denied = new Set([...profile.surface.denylist, ...(extra.denylist ?? [])]);
  const deniedEffects = new Set([...profile.surface.deniedEffects, ...(extra.deniedEffects ?? [])]);
  const readOnly = profile.worktree === 'readOnly';

  const surface: ToolDescriptor[] = [];
  const seen = new Set<string>();
  for (const tool of registry) {
    if (seen.has(tool.name)) continue;
    if (pinned.has(tool.name) || isSurfaced(tool)) {
      surface.push(tool);
      seen.add(tool.name);
    }
  }
  return surface;

  function isSurfaced(tool: ToolDescriptor): boolean {
    const rank = tierRank(tool.tier);
    if (rank > maxRank) return false;
    if (rank > 0 && allowed.some((list) => !list.has(tool.name))) return false;
    if (denied.has(tool.name)) return false;
    if (tool.effects.some((effect) => deniedEffects.has(effect))) return false;
    if (readOnly && tool.writesWorktree) return false;
    return true;
  }
}

/**
 * Pinned tools the registry does not provide. A mode whose output verb is missing cannot deliver, so
 * the caller should refuse to start the run (or report it) rather than let the completion contract fail.
 */
export function missingPinnedTools(profile: CapabilityProfile, registry: readonly ToolDescriptor[]): string[] {
  const names = new Set(registry.map((tool) => tool.name));
  return profile.pinnedTools.filter((name) => !names.has(name));
}
