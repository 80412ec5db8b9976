import { describe, expect, it } from 'vitest';
import { FORGE_PUBLISH_APPROVAL } from '../../src/services/reviews/forge/forge-review-service.js';
import { approvalKindWord } from '../../web/src/ui/words.js';

describe('approval kinds read as plain words', () => {
  it('names the forge publish approval instead of spacing its id', () => {
    const word = approvalKindWord(FORGE_PUBLISH_APPROVAL);
    expect(word).toBe('Publish review to pull request');
    expect(word).not.toMatch(/forge/i);
  });

  it('still spaces an unknown kind', () => {
    expect(approvalKindWord('someNewKind')).toMatch(/some new kind/i);
  });
});
