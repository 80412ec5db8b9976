/**
 * TOOL-3 with the real `claude` binary: an image the operator attaches to a message reaches the model
 * as an Anthropic `image` block — the transport writes the user message to Claude Code's stream-json
 * input as content blocks, and the CLI passes them on. The scripted model server is the only stand-in.
 */
import { afterAll, describe, it } from 'vitest';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { runImageAttachmentScenario } from '../support/image-attachment-scenario.js';

let fixture: ClaudeCodeFixture | null = null;
afterAll(async () => {
  await fixture?.dispose();
});

describe('Claude Code carries image attachments (TOOL-3)', () => {
  it('chat: the attached images reach the model as image blocks with their bytes and media types, before the text', async () => {
    fixture = await startClaudeCodeFixture({ operatorConnected: false, transport: { sandbox: 'none', allowUnsandboxed: true } });
    await runImageAttachmentScenario(fixture);
  }, 180_000);
});
