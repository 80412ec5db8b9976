import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one plain closing line, `N passed, N failed, N skipped`, after vitest's own summary so
 * CI can read the outcome without knowing vitest's format. Above it, each test that passed only on a
 * retry (vitest.config.ts allows one) is named: a retry hides nothing. An error thrown outside any
 * test fails the run with every test passed; vitest prints it far above, so its message and the top
 * of its stack are repeated here, where a reader of the log's last lines looks.
 */
export default class ClosingLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown> = []): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const passedOnRetry: string[] = [];
    for (const testModule of testModules) {
      for (const testCase of testModule.children.allTests()) {
        const state = testCase.result().state;
        if (state === 'passed' && (testCase.diagnostic()?.retryCount ?? 0) > 0) passedOnRetry.push(`${relative(process.cwd(), testModule.moduleId)} > ${testCase.fullName}`);
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
      if (testModule.state() === 'failed' && [...testModule.children.allTests()].length === 0) failed += 1;
    }
    if (passedOnRetry.length > 0) {
      process.stdout.write(`\nPassed only on a retry (a race to find and fix):\n${passedOnRetry.map((name) => `  ${name}`).join('\n')}\n`);
    }
    if (unhandledErrors.length > 0) {
      process.stdout.write(`\nErrors outside any test (they fail the run):\n${unhandledErrors.map(describeError).join('\n')}\n`);
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

/** An unhandled error in a few lines: its name and message, the top of its stack, the test file it came from. */
function describeError(error: unknown): string {
  const record = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as { name?: string; message?: string; stack?: string; stacks?: Array<{ file: string; line: number; method: string }>; VITEST_TEST_PATH?: string };
  const head = `  ${record.name ?? 'Error'}: ${record.message ?? ''}`;
  const frames = record.stacks?.length
    ? record.stacks.slice(0, 6).map((frame) => `    at ${frame.method || '<anonymous>'} (${relative(process.cwd(), frame.file)}:${frame.line})`)
    : (record.stack ?? '').split('\n').slice(1, 7).map((line) => `    ${line.trim()}`);
  const origin = record.VITEST_TEST_PATH ? [`    while running ${relative(process.cwd(), record.VITEST_TEST_PATH)}`] : [];
  return [head, ...frames, ...origin].join('\n');
}
