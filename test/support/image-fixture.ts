import { OpenAIImageTransport } from '../../src/adapters/openai-image/openai-image-transport.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from './claude-code-fixture.js';
import { startFakeImageServer, type FakeImageServer } from './fake-image-server.js';

/** A server with an `openai-image` agent whose images API is a {@link FakeImageServer}. */
export async function startImageFixture(options: { mode?: 'chat' | 'plan'; maxImageBytes?: number } = {}): Promise<{ f: ClaudeCodeFixture; images: FakeImageServer; dispose: () => Promise<void> }> {
  const images = await startFakeImageServer();
  const f = await startClaudeCodeFixture({
    ...(options.mode ? { mode: options.mode } : {}),
    env: { OPENAI_BASE_URL: images.baseUrl, OPENAI_API_KEY: 'sk-image-test' },
    adapter: { id: 'openai-image', transport: () => new OpenAIImageTransport(options.maxImageBytes ? { maxImageBytes: options.maxImageBytes } : {}) },
  });
  return {
    f,
    images,
    dispose: async () => {
      await f.dispose();
      await images.close();
    },
  };
}
