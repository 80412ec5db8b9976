import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one plain closing line, `N passed, N failed, N skipped`, after vitest's own summary so
 * CI can read the outcome without knowing vitest's format. Above it, each test that passed only on a
 * retry (vitest.config.ts allows one) is named: a retry hides nothing.
 */
export default class ClosingLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
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
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
