import { afterEach, describe, expect, it } from 'vitest';
import { ClaudeAgentSdkTransport } from '../../src/adapters/claude-agent-sdk/claude-agent-sdk-transport.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { useRunnerFixture } from '../support/runner-fixture.js';
import { questionCards } from '../support/relay-fixture.js';
import { expectNativeWritesRefused, expectNativeWritesRefusedInReview } from '../support/read-only-write-scenario.js';

/**
 * TRUTH-2: the honesty matrix's "intercepts native file writes ✅" in review and orchestrate, shown
 * by a run of each Claude runner in that very mode (the real `claude` binary, the real Agent SDK
 * engine), without the OS sandbox so that only the host's own refusals are in play.
 */
let claudeCode: ClaudeCodeFixture | null = null;
afterEach(async () => {
  await claudeCode?.dispose();
  claudeCode = null;
});

const startSdk = useRunnerFixture('claude-agent-sdk', ({ app, base }) => new ClaudeAgentSdkTransport({ ...base, askUser: questionCards(app) }));

describe('Claude Code CLI: native writes in review and orchestrate (CAP-5)', () => {
  it('review: as a reviewer, a native Write and a Bash redirect are refused and leave no file', async () => {
    claudeCode = await startClaudeCodeFixture({ transport: { sandbox: 'none', allowUnsandboxed: true } });
    const detail = await expectNativeWritesRefusedInReview(claudeCode);
    // Claude Code never offers Write in a read-only mode: the CLI answers the scripted call itself.
    expect(detail.toolCalls.find((call: any) => call.name === 'Write').output).toMatch(/No such tool available: Write/);
  });

  it('orchestrate: a native Write and a Bash redirect are refused and leave no file', async () => {
    claudeCode = await startClaudeCodeFixture({ mode: 'orchestrate', transport: { sandbox: 'none', allowUnsandboxed: true } });
    const detail = await expectNativeWritesRefused(claudeCode, 'orchestrate');
    expect(detail.toolCalls.find((call: any) => call.name === 'Write').output).toMatch(/No such tool available: Write/);
  });
});

describe('Claude Agent SDK: native writes in review and orchestrate (CAP-5)', () => {
  it('review: as a reviewer, a native Write and a Bash redirect are refused by the host and leave no file', async () => {
    const detail = await expectNativeWritesRefusedInReview(await startSdk());
    expect(detail.toolCalls.find((call: any) => call.name === 'Write').output).toMatch(/read-only mode/);
  });

  it('orchestrate: a native Write and a Bash redirect are refused by the host and leave no file', async () => {
    const f = await startSdk({ mode: 'orchestrate' });
    const detail = await expectNativeWritesRefused(f, 'orchestrate');
    expect(detail.toolCalls.find((call: any) => call.name === 'Write').output).toMatch(/read-only mode/);
  });
});
