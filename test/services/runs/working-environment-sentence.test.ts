import { describe, expect, it } from 'vitest';
import { ACP_CAPABILITIES } from '../../../src/adapters/acp/acp-capabilities.js';
import { BUILTIN_CAPABILITIES } from '../../../src/adapters/builtin/builtin-capabilities.js';
import { CLAUDE_AGENT_SDK_CAPABILITIES } from '../../../src/adapters/claude-agent-sdk/claude-agent-sdk-capabilities.js';
import { CLAUDE_CODE_CAPABILITIES } from '../../../src/adapters/claude-code/claude-code-capabilities.js';
import { CODEX_CAPABILITIES } from '../../../src/adapters/codex/codex-capabilities.js';
import { COPILOT_CAPABILITIES } from '../../../src/adapters/copilot/copilot-capabilities.js';
import { GROK_CAPABILITIES } from '../../../src/adapters/grok/grok-capabilities.js';
import { workingEnvironmentSentence } from '../../../src/services/runs/working-environment-sentence.js';

const CHECKED = /Your own file and shell tools are checked by the Control Center before they run\./;

describe('the system prompt tells a runner only the checks its transport makes (CAP-7)', () => {
  it('Claude Code and the Claude Agent SDK, whose every command and write passes the hook, are told their tools are checked', () => {
    for (const declared of [CLAUDE_CODE_CAPABILITIES, CLAUDE_AGENT_SDK_CAPABILITIES]) {
      expect(workingEnvironmentSentence(declared)).toMatch(CHECKED);
      expect(workingEnvironmentSentence(declared)).toMatch(/tools come from its MCP server/);
    }
  });

  it('runners that ask only for some actions (Codex, ACP, Copilot) are not told every tool is checked', () => {
    for (const declared of [CODEX_CAPABILITIES, ACP_CAPABILITIES, COPILOT_CAPABILITIES]) {
      const sentence = workingEnvironmentSentence(declared);
      expect(sentence).not.toMatch(CHECKED);
      expect(sentence).toMatch(/does not check every action of your own file and shell tools before it runs; the sandbox bounds what they do/);
      expect(sentence).toMatch(/tools come from its MCP server/);
    }
  });

  it('the Grok CLI, which approves its own tools but gets the MCP server through its bridge, is told only the tools come from it', () => {
    const sentence = workingEnvironmentSentence(GROK_CAPABILITIES);
    expect(sentence).not.toMatch(CHECKED);
    expect(sentence).toMatch(/tools come from its MCP server/);
    expect(sentence).not.toMatch(/offers no tools of its own in this session/);
  });

  it('the built-in harness, whose tools the host runs, is told paths leaving the worktree are refused', () => {
    expect(workingEnvironmentSentence(BUILTIN_CAPABILITIES)).toMatch(/paths that leave it are refused/);
  });
});
