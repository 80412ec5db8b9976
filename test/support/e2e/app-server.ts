import type { Page } from 'playwright-core';
import { startScriptedModelServer, type ScriptedModelServer } from '../scripted-model-server.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../test-server.js';
import { launchBrowser, type TestBrowser } from './browser.js';
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

/** A signed-in browser on the real server, with a seeded workspace whose agents talk to the scripted model. */
export interface LiveAppSuite {
  server: TestServer;
  workspaceId: string;
  model: ScriptedModelServer;
  ui: TestBrowser;
  close(): Promise<void>;
}

export async function startLiveAppSuite(workspaceName = 'Acme'): Promise<LiveAppSuite> {
  const server = await startAppServer();
  const workspaceId = (await createSeededWorkspace(server, workspaceName)).id;
  const model = await startScriptedModelServer();
  // Every agent runs on the default Anthropic model: point it at the scripted model server.
  const settings = await server.api('PATCH', `/api/workspaces/${workspaceId}/settings`, { apiKeys: { anthropic: 'scripted-key' }, baseUrls: { anthropic: model.url } });
  if (settings.status !== 200) throw new Error(`settings: ${JSON.stringify(settings.body)}`);
  const ui = await launchBrowser();
  await signIn(ui.page, server);
  return {
    server,
    workspaceId,
    model,
    ui,
    async close() {
      await ui.close();
      await server.dispose();
      await model.close();
    },
  };
}
