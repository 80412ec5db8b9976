/**
 * `anthropic-beta` values the model proxy passes upstream (SEC-8): betas that change how the model
 * answers the client, none that turns on a tool the provider runs on its side. What the real `claude`
 * sends on every model call (recorded against the scripted model server): claude-code-*,
 * context-1m-*, interleaved-thinking-*, thinking-token-count-*, context-management-*,
 * prompt-caching-scope-*, mid-conversation-system-*, effort-*; the Claude Agent SDK's adds a few;
 * the rest are the other client-side betas of the Anthropic SDKs. Everything else is dropped (mcp-client-*, mcp-servers-*, web-fetch-*,
 * web-search-*, code-execution-*, files-api-*, computer-use-*, skills-*, …): harmless, because a
 * request that uses such a tool is refused by the proxy anyway, and an unknown beta is never a way in.
 */
const CLIENT_SIDE_BETA_PREFIXES = [
  'claude-code-',
  'context-1m-',
  'interleaved-thinking-',
  'thinking-token-count-',
  'context-management-',
  'prompt-caching-',
  'mid-conversation-system-',
  'effort-',
  'fine-grained-tool-streaming-',
  'token-efficient-tools-',
  'output-128k-',
  'extended-cache-ttl-',
  'redact-thinking-',
  'structured-outputs-',
  'token-counting-',
  'oauth-',
  // What the Claude Agent SDK's bundled `claude` sends besides (recorded the same way).
  'per-turn-control-',
  'mid-conversation-tool-changes-',
  'thinking-display-updates-',
  'dangerous-tool-use-',
  'afk-mode-',
  // Client tools loaded on demand and their input examples; the server tools it also covers
  // (tool search, programmatic calls from code execution) are refused by the proxy anyway.
  'advanced-tool-use-',
];

/** A beta name: letters, digits and dashes (a date at its end), nothing a header could smuggle. */
const BETA_NAME = /^[a-z0-9][a-z0-9-]{0,80}$/;

/** The `anthropic-beta` value with only client-side betas kept, or null when none is left. */
export function clientSideBetas(value: string): string | null {
  const kept = value
    .split(',')
    .map((beta) => beta.trim())
    .filter((beta) => BETA_NAME.test(beta) && CLIENT_SIDE_BETA_PREFIXES.some((prefix) => beta.startsWith(prefix)));
  return kept.length > 0 ? kept.join(',') : null;
}
