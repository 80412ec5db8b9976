import type { EffectClass } from './effect-classes.js';
import type { CapabilityProfile } from './capability-profiles.js';
import type { Mode } from './modes.js';

/** What a mode-scope rule matches: one effect class, or any write inside the worktree. */
export type GuardPresetMatch = { readonly kind: 'class'; readonly effectClass: EffectClass } | { readonly kind: 'worktreeWrite' };

/** One mode-scope rule of the action guard. Ids are stable (`mode:plan:forbid:gitPush`) so denials can cite them. */
export interface GuardPresetRule {
  readonly id: string;
  readonly match: GuardPresetMatch;
  readonly decision: 'deny';
}

/** The action-guard preset of a mode (CAP-1c): the mode-scope rules of POL-3. */
export interface GuardPreset {
  readonly mode: Mode;
  /** Classes denied at once (CAP-4). */
  readonly forbiddenEffects: readonly EffectClass[];
  /** True when any write inside the worktree is denied (read-only worktree, CAP-5). */
  readonly denyWorktreeWrites: boolean;
  /** The same content as rules with ids, in a stable order. */
  readonly rules: readonly GuardPresetRule[];
}

/** Id of the mode rule forbidding a class, e.g. `mode:plan:forbid:fileDelete`. */
export function modeForbidRuleId(mode: Mode, effectClass: EffectClass): string {
  return `mode:${mode}:forbid:${effectClass}`;
}

/** Id of the mode rule denying worktree writes, e.g. `mode:plan:readOnlyWorktree`. */
export function modeReadOnlyRuleId(mode: Mode): string {
  return `mode:${mode}:readOnlyWorktree`;
}

/**
 * Projects a profile onto the action guard (CAP-1c, CAP-2): every forbidden class becomes a deny, and a
 * read-only worktree becomes a deny on worktree writes. The policy engine reads nothing else about a
 * mode, so the guard cannot contradict the tool surface built from the same profile.
 */
export function buildGuardPreset(profile: CapabilityProfile): GuardPreset {
  const denyWorktreeWrites = profile.worktree === 'readOnly';
  const rules: GuardPresetRule[] = profile.forbiddenEffects.map((effectClass) => ({
    id: modeForbidRuleId(profile.mode, effectClass),
    match: { kind: 'class', effectClass },
    decision: 'deny',
  }));
  if (denyWorktreeWrites) {
    rules.push({ id: modeReadOnlyRuleId(profile.mode), match: { kind: 'worktreeWrite' }, decision: 'deny' });
  }
  return { mode: profile.mode, forbiddenEffects: profile.forbiddenEffects, denyWorktreeWrites, rules };
}
