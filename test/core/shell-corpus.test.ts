import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { EFFECT_CLASSES, classifyShellCommand, isEffectClass, loadShellParser, type EffectClass } from '../../src/core/index.js';

interface CorpusEntry {
  readonly command: string;
  readonly classes: EffectClass[];
  readonly writesWorktree: boolean;
  readonly unknown?: boolean;
  readonly note?: string;
}

const corpus = JSON.parse(readFileSync(new URL('../fixtures/shell-corpus.json', import.meta.url), 'utf8')) as CorpusEntry[];

beforeAll(async () => {
  await loadShellParser();
});

describe('shell classification corpus (POL-2)', () => {
  it('POL-2: the corpus holds at least 300 commands with valid expectations and no duplicates', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(300);
    expect(new Set(corpus.map((entry) => entry.command)).size).toBe(corpus.length);
    for (const entry of corpus) {
      for (const effectClass of entry.classes) expect(isEffectClass(effectClass), entry.command).toBe(true);
      expect(entry.classes, `${entry.command}: canonical order`).toEqual(EFFECT_CLASSES.filter((effectClass) => entry.classes.includes(effectClass)));
    }
  });

  it.each(corpus.map((entry) => [entry.command, entry] as const))('POL-2: %j', (_command, entry) => {
    const result = classifyShellCommand(entry.command);
    expect({ classes: result.classes, writesWorktree: result.writesWorktree, unknown: result.unknown }).toEqual({
      classes: entry.classes,
      writesWorktree: entry.writesWorktree,
      unknown: entry.unknown ?? false,
    });
  });

  it('POL-2: unknown is never read — every unknown result carries the restrictive classes', () => {
    for (const entry of corpus) {
      const result = classifyShellCommand(entry.command);
      if (!result.unknown) continue;
      for (const effectClass of ['processSpawn', 'fileWriteOutsideWorktree', 'fileDelete'] as const) expect(result.classes, entry.command).toContain(effectClass);
      expect(result.writesWorktree, entry.command).toBe(true);
    }
  });

  it('the union of subcommand classes is the result', () => {
    for (const entry of corpus) {
      const result = classifyShellCommand(entry.command);
      const union = new Set(result.subcommands.flatMap((subcommand) => subcommand.classes));
      expect(new Set(result.classes), entry.command).toEqual(union);
      expect(result.writesWorktree, entry.command).toBe(result.subcommands.some((subcommand) => subcommand.writesWorktree));
    }
  });
});
