import { describe, expect, it } from 'vitest';
import {
  DEFAULT_EFFECT_DECISIONS,
  EFFECT_CLASSES,
  WORLD_CHANGING_EFFECT_CLASSES,
  canonicalEffectClasses,
  isEffectClass,
  mostRestrictive,
} from '../../src/core/index.js';

describe('effect classes (POL-2)', () => {
  it('POL-2: the set is closed and has exactly the thirteen classes', () => {
    expect([...EFFECT_CLASSES].sort()).toEqual(
      [
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
      ].sort(),
    );
    expect(isEffectClass('fileDelete')).toBe(true);
    expect(isEffectClass('FileDelete')).toBe(false);
    expect(isEffectClass('worktreeWrite')).toBe(false);
  });

  it('POL-2: built-in defaults ask for fileDelete, gitPush, prCreate, prPublish, vendorSyncWrite and allow the rest', () => {
    const asking = EFFECT_CLASSES.filter((effectClass) => DEFAULT_EFFECT_DECISIONS[effectClass] === 'ask');
    expect(asking.sort()).toEqual(['fileDelete', 'gitPush', 'prCreate', 'prPublish', 'vendorSyncWrite'].sort());
    for (const effectClass of EFFECT_CLASSES) {
      expect(['allow', 'ask']).toContain(DEFAULT_EFFECT_DECISIONS[effectClass]);
    }
  });

  it('CAP-4: world-changing classes are all but networkEgress and secretAccess', () => {
    expect(WORLD_CHANGING_EFFECT_CLASSES).toHaveLength(11);
    expect(WORLD_CHANGING_EFFECT_CLASSES).not.toContain('networkEgress');
    expect(WORLD_CHANGING_EFFECT_CLASSES).not.toContain('secretAccess');
  });

  it('canonical order drops duplicates and follows the declared order', () => {
    expect(canonicalEffectClasses(['processSpawn', 'fileDelete', 'processSpawn'])).toEqual(['fileDelete', 'processSpawn']);
  });

  it('POL-3: most restrictive is deny > ask > allow', () => {
    expect(mostRestrictive('allow', 'ask')).toBe('ask');
    expect(mostRestrictive('deny', 'ask')).toBe('deny');
    expect(mostRestrictive('allow', 'allow')).toBe('allow');
  });
});
