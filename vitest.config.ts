import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Many tests start real processes (the server, claude, codex, grok, bwrap, tsx children). On CI's
    // loaded 2-core machine some take 25-50 s where an idle machine takes a few; 30 s was missed there.
    // A test that hangs fails later, one that works is not slowed. Browser tests take 120 s each
    // (BROWSER_TEST_TIMEOUT_MS in test/support/e2e/browser.ts).
    testTimeout: 90_000,
    hookTimeout: 90_000,
    // expect.poll waits for something another process or the browser does (a live event, a refetch,
    // a run ending). Its own default, 1 s, is missed on CI's loaded 2-core machine; a poll that is met
    // returns at once, so a longer bound costs only a failing test's time.
    expect: { poll: { timeout: 15_000 } },
    // One retry: on CI's loaded 2-core machine a browser test that waits on a live event can lose a race
    // the product then wins a moment later. A retry is never silent: the closing line names every test
    // that passed only on a retry, so the race is seen and fixed rather than hidden.
    retry: 1,
    pool: 'forks',
    reporters: ['default', './test/support/closing-line-reporter.ts'],
  },
});
