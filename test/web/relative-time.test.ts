/** The session list's "last seen" words: relative, never in the future, plural right. */
import { describe, expect, it } from 'vitest';
import { timeAgo } from '../../web/src/ui/relative-time.js';

const now = Date.parse('2026-03-10T12:00:00Z');
const before = (seconds: number) => new Date(now - seconds * 1000).toISOString();

describe('timeAgo', () => {
  it('says "just now" under a minute and for a clock slightly ahead', () => {
    expect(timeAgo(before(0), now)).toBe('just now');
    expect(timeAgo(before(59), now)).toBe('just now');
    expect(timeAgo(before(-5), now)).toBe('just now');
  });
  it('names the largest whole unit', () => {
    expect(timeAgo(before(60), now)).toBe('1 minute ago');
    expect(timeAgo(before(150), now)).toBe('2 minutes ago');
    expect(timeAgo(before(3 * 3600 + 59), now)).toBe('3 hours ago');
    expect(timeAgo(before(2 * 24 * 3600), now)).toBe('2 days ago');
    expect(timeAgo(before(15 * 24 * 3600), now)).toBe('2 weeks ago');
  });
  it('says it does not know for a time it cannot read', () => {
    expect(timeAgo('not a time', now)).toBe('—');
  });
});
