/**
 * ACP agents an operator may name by their bare program name (RLY-7): each is looked up only in the
 * Control Center's own `node_modules/.bin`, never on a PATH, so a name cannot pick up a program
 * someone put earlier on the PATH. Any other program is given as an absolute path. Pure data with no
 * imports, so the web's agent editor can offer the names.
 */
export const KNOWN_ACP_AGENTS = ['claude-agent-acp', 'claude-code-acp', 'codex-acp', 'copilot', 'gemini'] as const;
export type KnownAcpAgent = (typeof KNOWN_ACP_AGENTS)[number];
