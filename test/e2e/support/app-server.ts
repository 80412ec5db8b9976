import type { Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../../support/test-server.js';
import { ensureWebBuild } from './ensure-web-build.js';

/** Builds web/dist if needed and starts the real server (startTestServer) that serves it. */
export async function startAppServer(): Promise<TestServer> {
  await ensureWebBuild();
  const server = await startTestServer();
  const home = await fetch(`${server.url}/`);
  const type = home.headers.get('content-type') ?? '';
  if (!type.includes('text/html')) {
    await server.dispose();
    throw new Error(`the server does not serve the web app at / (got ${home.status} ${type}); build-server.ts must call registerWebApp`);
  }
  return server;
}

/** Signs in through the UI with the operator token and waits for the app shell. */
export async function signIn(page: Page, server: TestServer): Promise<void> {
  await page.goto(`${server.url}/`);
  await page.getByLabel('Operator token').fill(server.token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.topbar').waitFor();
}

/** Waits until background seeding has created the five agents of a workspace. */
export async function waitForSeed(server: TestServer): Promise<void> {
  await server.running.app.seeding.settle();
}
