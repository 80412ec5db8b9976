import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits for something another process or the browser does (a live event, a refetch,
    // a run ending). Its own default, 1 s, is missed on CI's loaded 2-core machine; a poll that is met
    // returns at once, so a longer bound costs only a failing test's time.
    expect: { poll: { timeout: 15_000 } },
    pool: 'forks',
    reporters: ['default', './test/support/closing-line-reporter.ts'],
  },
});
