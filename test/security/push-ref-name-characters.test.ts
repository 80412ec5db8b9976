/**
 * POL-3, security: a ref name in an agent's pack becomes a word of the command line the policy
 * decides. Git itself never makes a ref name with whitespace, control characters or a backslash, but
 * a hand-written pack can carry one, and such a name could split into two words or hide in a terminal;
 * the proxy refuses it before anything is decided. Names that are odd but legal pass (they are quoted).
 */
import { describe, expect, it } from 'vitest';
import { pushRefProblem } from '../../src/git/git-push-proxy.js';

describe('push ref name characters (POL-3, security)', () => {
  it('refuses whitespace, control characters and backslashes; lets legal shell characters through', () => {
    for (const ref of ['refs/heads/a b', 'refs/heads/a\tb', 'refs/heads/a\nmain', 'refs/heads/a\u0000b', 'refs/heads/a\u001b[2Jb', 'refs/heads/a\u007fb', 'refs/heads/a\\b', 'refs/heads/a\u00a0b', 'refs/heads/a\u2028b']) {
      expect(pushRefProblem(ref), JSON.stringify(ref)).toMatch(/whitespace, a control character or a backslash/);
    }
    for (const ref of ['refs/heads/main', 'refs/heads/feature;x', 'refs/heads/#x', 'refs/heads/$(id)', 'refs/heads/a|b', 'refs/tags/v1.0']) {
      expect(pushRefProblem(ref), ref).toBeNull();
    }
  });
});
