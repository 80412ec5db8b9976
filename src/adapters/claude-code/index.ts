export { ClaudeCodeTransport, CLAUDE_CODE_ADAPTER_ID, type ClaudeCodeTransportOptions } from './claude-code-transport.js';
export { claudeCodeArgs, mcpConfig, mcpToolName, MCP_SERVER_NAME, MUTATING_NATIVE_TOOLS, userMessageLine, type ClaudeCodeArgsInput } from './claude-code-args.js';
export { resolveClaudePath, CLAUDE_PATH_VARIABLE } from './claude-binary.js';
export { HookSessions, hookSessions, bearerToken, type HookSession, type HookDecisionRecord, type PushRemote } from './hook-sessions.js';
export { hookOutput, hookDeny, transportActionOf, HOOKED_TOOLS, HOOK_MATCHER, type PreToolUseInput, type PreToolUseOutput } from './hook-decision.js';
export { HOOK_SCRIPT, hookSettings, writeHookFiles, PRE_TOOL_USE_PATH } from './hook-script.js';
export { NdjsonFramer, type MalformedLine } from './ndjson-framer.js';
export { ClaudeStreamTranslator, toModelUsage, type ClaudeResultSummary, type ClaudeInitSummary } from './stream-translator.js';
export { CLAUDE_CODE_CAPABILITIES } from './claude-code-capabilities.js';
