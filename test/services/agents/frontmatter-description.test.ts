import { describe, expect, it } from 'vitest';
import { frontmatterDescription } from '../../../src/services/agents/frontmatter-description.js';

describe('a SKILL.md description parsed once per frontmatter text (SKL-1, SKL-2, issue 11)', () => {
  it('reads the description, and an edited frontmatter is parsed again, never served stale', () => {
    expect(frontmatterDescription('name: review\ndescription: Reviews a diff')).toBe('Reviews a diff');
    // The same text again: the same answer (served from the cache).
    expect(frontmatterDescription('name: review\ndescription: Reviews a diff')).toBe('Reviews a diff');
    // The file was edited: the new text carries the new description.
    expect(frontmatterDescription('name: review\ndescription: Reviews a pull request')).toBe('Reviews a pull request');
    expect(frontmatterDescription('name: review\ndescription: Reviews a diff')).toBe('Reviews a diff');
  });

  it('is null for a missing or non-string description and for frontmatter that is not YAML', () => {
    expect(frontmatterDescription('name: review')).toBeNull();
    expect(frontmatterDescription('description: [a, b]')).toBeNull();
    expect(frontmatterDescription('description: "unclosed')).toBeNull();
    // A null answer is kept too, and an edit that adds a description is still seen.
    expect(frontmatterDescription('name: review')).toBeNull();
    expect(frontmatterDescription('name: review\ndescription: now described')).toBe('now described');
  });
});
