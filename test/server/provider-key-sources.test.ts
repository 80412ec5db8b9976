import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * TRUTH-4: Settings says where each provider's key and base URL come from. A server running on
 * `ANTHROPIC_API_KEY` from its environment shows that key as "from environment" (by the variable's
 * name, never its value), not as "not set".
 */
const ENV_SECRET = 'sk-ant-from-env-SECRET-0001';
let server: TestServer;
let settingsPath: string;

beforeAll(async () => {
  server = await startTestServer({ env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: ENV_SECRET, XAI_BASE_URL: 'http://127.0.0.1:9/v1', OPENAI_API_KEY: '  ' } });
  settingsPath = `/api/workspaces/${(await createSeededWorkspace(server)).id}/settings`;
});
afterAll(async () => {
  await server.dispose();
});

describe('where a provider’s key and base URL come from (TRUTH-4)', () => {
  it('a key from the server’s environment is "environment", never its value; a blank one is missing', async () => {
    const read = await server.api('GET', settingsPath);
    expect(read.status).toBe(200);
    expect(read.body.apiKeys).toEqual({});
    expect(read.body.providerSetup.anthropic).toEqual({ key: 'environment', keyEnvVar: 'ANTHROPIC_API_KEY', baseUrl: 'default', baseUrlEnvVar: 'ANTHROPIC_BASE_URL' });
    expect(read.body.providerSetup.openai).toMatchObject({ key: 'missing', keyEnvVar: 'OPENAI_API_KEY' });
    expect(read.body.providerSetup.xai).toMatchObject({ key: 'missing', baseUrl: 'environment', baseUrlEnvVar: 'XAI_BASE_URL' });
    expect(read.body.providerSetup.ollama).toMatchObject({ key: 'notNeeded', keyEnvVar: null });
    expect(read.body.providerSetup['openai-compatible']).toMatchObject({ baseUrl: 'missing', baseUrlEnvVar: 'OPENAI_COMPATIBLE_BASE_URL' });
    expect(JSON.stringify(read.body)).not.toContain(ENV_SECRET);
  });

  it('a key and base URL set in Settings win over the environment and say so', async () => {
    const updated = await server.api('PATCH', settingsPath, { apiKeys: { anthropic: 'sk-ant-settings-key' }, baseUrls: { anthropic: 'http://127.0.0.1:9' } });
    expect(updated.status).toBe(200);
    expect(updated.body.providerSetup.anthropic).toMatchObject({ key: 'settings', baseUrl: 'settings' });
    expect(JSON.stringify(updated.body)).not.toContain('sk-ant-settings-key');
    const removed = await server.api('PATCH', settingsPath, { apiKeys: { anthropic: null }, baseUrls: { anthropic: null } });
    expect(removed.body.providerSetup.anthropic).toMatchObject({ key: 'environment', baseUrl: 'default' });
  });
});
