/**
 * The `config.toml` of the server-owned `CODEX_HOME` a Codex run starts with (RLY-7, SEC-6). It names
 * one model provider, the Control Center's model proxy, whose key is the run token read from an
 * environment variable; turns off analytics, update checks, plugins, apps, hooks and other features
 * that would reach the network or run code the policy engine never sees; and serves the product
 * tools from the Control Center's MCP server. No user `~/.codex` is read: the file is rewritten
 * before every turn from the server's values alone.
 */

/** The environment variable holding the run token for the model proxy and the MCP server. */
export const CODEX_TOKEN_VARIABLE = 'CONTROL_CENTER_RUN_TOKEN';
/** The provider id the config defines (never one of Codex's built-ins, which would carry their own endpoints). */
export const CODEX_PROVIDER_ID = 'control-center';

/** Features switched off: network reach, code from outside the policy engine, and UI-only surfaces. */
const DISABLED_FEATURES = ['apps', 'plugins', 'remote_plugin', 'plugin_sharing', 'hooks', 'goals', 'browser_use', 'browser_use_external', 'computer_use', 'image_generation', 'in_app_updates', 'tool_suggest', 'memories', 'multi_agent'];

/** A TOML basic string (JSON's escapes are a subset TOML accepts for the characters JSON escapes). */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

export interface CodexConfigInput {
  model: string;
  /** The agent's effort (TRUTH-1), Codex's `model_reasoning_effort`; null leaves Codex's default. */
  effort: string | null;
  /** The model proxy's base URL for the OpenAI provider; Codex appends `/responses`. */
  modelBaseUrl: string;
  mcpUrl: string;
  /**
   * SEC-8: whether the run's policy allows the provider's web search. Codex names its web_search tool
   * in every model request; when the policy refuses it, the model proxy would refuse every request,
   * so Codex is told not to offer it at all. Absent: Codex's default.
   */
  webSearch?: boolean;
}

export function codexConfigToml(input: CodexConfigInput): string {
  return [
    `model = ${tomlString(input.model)}`,
    ...(input.effort ? [`model_reasoning_effort = ${tomlString(input.effort)}`] : []),
    `model_provider = ${tomlString(CODEX_PROVIDER_ID)}`,
    // Every escape from Codex's read-only sandbox (any write) and every patch is an approval request
    // the host answers; nothing is approved by Codex itself.
    'approval_policy = "on-request"',
    'sandbox_mode = "read-only"',
    'check_for_update_on_startup = false',
    'hide_agent_reasoning = false',
    ...(input.webSearch === false ? ['web_search = "disabled"'] : []),
    '',
    '[analytics]',
    'enabled = false',
    '',
    // SKL-5: Codex's bundled system skills were never scanned; the run's scanned skills are handed
    // over at run time (`codex-skills.ts`), and every other skill Codex finds is switched off there.
    '[skills.bundled]',
    'enabled = false',
    '',
    '[features]',
    ...DISABLED_FEATURES.map((feature) => `${feature} = false`),
    '',
    `[model_providers.${CODEX_PROVIDER_ID}]`,
    'name = "Control Center model proxy"',
    `base_url = ${tomlString(input.modelBaseUrl)}`,
    `env_key = ${tomlString(CODEX_TOKEN_VARIABLE)}`,
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[mcp_servers.control-center]',
    `url = ${tomlString(input.mcpUrl)}`,
    `bearer_token_env_var = ${tomlString(CODEX_TOKEN_VARIABLE)}`,
    // The MCP server decides every product-tool call itself (the built-in chokepoint: policy,
    // approval, pinned verbs); a second, Codex-side approval would only be answered by the host.
    'default_tools_approval_mode = "approve"',
    '',
  ].join('\n');
}
