import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { REPO_ROOT } from './ensure-web-build.js';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOT_DIR = join(REPO_ROOT, 'test-output', 'e2e');

/**
 * How long one browser test may take; every e2e describe() passes it to its tests. A test drives the
 * real server, chromium and often a model turn: a few seconds on an idle machine, but on CI's loaded
 * 2-core machine one ran past the 30 s vitest.config.ts had then while it was still progressing.
 */
export const BROWSER_TEST_TIMEOUT_MS = 120_000;

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Saves a full-page screenshot as test-output/e2e/<name>.png. */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

/** Debian's chromium, headless, with a fresh profile; one page at 1280×800 (§13: readable there). */
export async function launchBrowser(): Promise<TestBrowser> {
  const userDataDir = await mkdtemp(join(tmpdir(), 'cc-e2e-chromium-'));
  // A fresh profile per launch. Playwright takes the profile directory as launchPersistentContext's
  // first argument (it refuses a --user-data-dir flag in args); it passes it on as --user-data-dir.
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  // Playwright's waits (waitFor, click, fill, textContent) for an element the app renders after a
  // request: generous, as CI's loaded machine can take seconds where an idle one takes milliseconds.
  context.setDefaultTimeout(30_000);
  const page = context.pages()[0] ?? (await context.newPage());
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  return {
    context,
    page,
    async screenshot(name: string) {
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await context.close().catch(() => undefined);
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}
