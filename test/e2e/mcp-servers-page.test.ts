/** TOOL-2 in the web app: Settings → MCP servers — add server-everything over stdio for an agent, see its tools with the scan verdict, declare one class-free. */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT_MS, launchBrowser, type TestBrowser } from '../support/e2e/browser.js';
import { signIn, startAppServer } from '../support/e2e/app-server.js';
import { createSeededWorkspace, type TestServer } from '../support/test-server.js';

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

let server: TestServer;
let ui: TestBrowser;
let ws: { id: string };

beforeAll(async () => {
  server = await startAppServer();
  ws = await createSeededWorkspace(server, 'Acme');
  ui = await launchBrowser();
  await signIn(ui.page, server);
}, 900_000);

afterAll(async () => {
  await ui?.close();
  await server?.dispose();
});

describe('MCP servers page (TOOL-2)', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('adds a stdio server for an agent, lists its tools with their verdicts, and declares one tool class-free', async () => {
    const { page } = ui;
    await page.goto(`${server.url}/w/${ws.id}/settings/mcp-servers`);
    await page.getByText('No MCP servers').waitFor({ timeout: 60_000 });
    await page.getByLabel('Name (tools are called mcp__name__tool)').fill('everything');
    await page.getByLabel('Program (absolute path; no shell)').fill(process.execPath);
    await page.getByLabel('Arguments (one per line, literal)').fill(`${everything}\nstdio`);
    await page.getByLabel('Environment variables (NAME=VALUE per line; write-only)').fill('EVERYTHING_TOKEN=web-secret-31');
    await page.getByRole('group', { name: 'Agents' }).getByLabel('engineer').check();
    await page.getByRole('button', { name: 'Add server' }).click();
    const echo = page.getByTestId('mcp-tool-echo');
    await echo.waitFor({ timeout: 60_000 });
    expect(await echo.textContent()).toContain('Echoes back the input string');
    expect(await echo.textContent()).toContain('Not reviewed: every class, every call asks');
    expect(await page.getByTestId('mcp-server-everything').textContent()).toContain('secrets set: EVERYTHING_TOKEN');
    expect(await page.content()).not.toContain('web-secret-31');
    await ui.screenshot('mcp-servers-listed');

    await page.getByRole('button', { name: 'echo changes nothing' }).click();
    await expect.poll(() => echo.textContent(), { timeout: 30_000 }).toContain('None: changes nothing');
    const servers = (await server.api('GET', `/api/workspaces/${ws.id}/mcp-servers`)).body.servers;
    const agents = (await server.api('GET', `/api/workspaces/${ws.id}/agents`)).body.agents;
    expect(servers[0].agents).toEqual([agents.find((agent: any) => agent.name === 'engineer').id]);
    expect(servers[0].tools.find((tool: any) => tool.name === 'echo')).toMatchObject({ effects: [], effectsAssigned: true });
  });
});
