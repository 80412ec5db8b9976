import type { Decision } from './decisions.js';

/**
 * The closed set of effect classes (POL-2). Every mutating tool declares the classes it can cause and
 * every shell command is classified into them; policy rules are written against them. Adding a class
 * is a product decision, not a tool author's: the set is closed on purpose so a rule written today
 * still covers tomorrow's tools.
 */
export const EFFECT_CLASSES = [
  'fileDelete',
  'fileWriteOutsideWorktree',
  'gitCommit',
  'gitPush',
  'prCreate',
  'prPublish',
  'vendorSyncWrite',
  'networkEgress',
  'secretAccess',
  'packageInstall',
  'processSpawn',
  'workspaceMutation',
  'sandboxControl',
] as const;

/** One of the thirteen effect classes of POL-2. */
export type EffectClass = (typeof EFFECT_CLASSES)[number];

const EFFECT_CLASS_SET: ReadonlySet<string> = new Set(EFFECT_CLASSES);

/** True when `value` names one of the POL-2 effect classes (used at trust boundaries: stored rules, tool files). */
export function isEffectClass(value: unknown): value is EffectClass {
  return typeof value === 'string' && EFFECT_CLASS_SET.has(value);
}

/**
 * Built-in defaults, the last scope of POL-3 (POL-2): actions that are hard to undo or visible to
 * other people ask first; everything else is allowed unless a rule, the mode or the dial says otherwise.
 */
export const DEFAULT_EFFECT_DECISIONS: Readonly<Record<EffectClass, Decision>> = {
  fileDelete: 'ask',
  fileWriteOutsideWorktree: 'allow',
  gitCommit: 'allow',
  gitPush: 'ask',
  prCreate: 'ask',
  prPublish: 'ask',
  vendorSyncWrite: 'ask',
  networkEgress: 'allow',
  secretAccess: 'allow',
  packageInstall: 'allow',
  processSpawn: 'allow',
  workspaceMutation: 'allow',
  sandboxControl: 'allow',
};

/**
 * The world-changing classes that read-only modes deny (CAP-4): everything except network egress and
 * secret access, which stay at their defaults because research is the point of a read-only mode.
 */
export const WORLD_CHANGING_EFFECT_CLASSES: readonly EffectClass[] = EFFECT_CLASSES.filter(
  (effectClass) => effectClass !== 'networkEgress' && effectClass !== 'secretAccess',
);

/** Sorts classes into the canonical order of {@link EFFECT_CLASSES} and drops duplicates. */
export function canonicalEffectClasses(classes: Iterable<EffectClass>): EffectClass[] {
  const present = new Set(classes);
  return EFFECT_CLASSES.filter((effectClass) => present.has(effectClass));
}
