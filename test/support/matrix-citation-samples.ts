import { describe, expect, it } from 'vitest';
import { probeBubblewrap } from '../../src/sandbox/bubblewrap-sandbox.js';

/**
 * Declarations the honesty-matrix checker must refuse to accept as proof (TRUTH-2), read as source
 * by test/adapters/honesty-matrix.test.ts. Not a `.test.ts` file: vitest never collects it, and
 * nothing imports it.
 */
const probe = await probeBubblewrap();
const onSomeHosts = process.env.CI === 'true';

describe('samples: Claude Code runs that may not run', () => {
  it.skip('plan: a skipped test', () => {
    expect(true).toBe(true);
  });
  it.todo('plan: a test still to write');
  it.skipIf(onSomeHosts)('plan: a test skipped on some hosts', () => {
    expect(true).toBe(true);
  });
  it('plan: a test that may end before it asserts', () => {
    if (onSomeHosts) return;
    expect(true).toBe(true);
  });
  it('plan: a test that always runs', () => {
    expect(true).toBe(true);
  });
});

describe.skipIf(!probe.available)('samples: Claude Code in bubblewrap', () => {
  it('a test that runs wherever bubblewrap works', () => {
    expect(probe.available).toBe(true);
  });
});
