/**
 * TOOL-3 with the real Claude Agent SDK: an image the operator attaches to a message reaches the model
 * as an Anthropic `image` block — the transport puts the user message into the SDK's streaming input as
 * content blocks, and its engine passes them on. The scripted model server is the only stand-in.
 */
import { describe, it } from 'vitest';
import { ClaudeAgentSdkTransport } from '../../src/adapters/claude-agent-sdk/claude-agent-sdk-transport.js';
import { runImageAttachmentScenario } from '../support/image-attachment-scenario.js';
import { questionCards } from '../support/relay-fixture.js';
import { useRunnerFixture } from '../support/runner-fixture.js';

const start = useRunnerFixture('claude-agent-sdk', ({ app, base }) => new ClaudeAgentSdkTransport({ ...base, askUser: questionCards(app) }));

describe('Claude Agent SDK carries image attachments (TOOL-3)', () => {
  it('agent: the attached images reach the model as image blocks with their bytes and media types, before the text', async () => {
    await runImageAttachmentScenario(await start());
  }, 180_000);
});
