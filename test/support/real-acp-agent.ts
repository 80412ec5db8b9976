import { fileURLToPath } from 'node:url';

/**
 * The entry script of a real ACP agent from npm (`@zed-industries/claude-agent-acp`, a dev
 * dependency); `CONTROL_CENTER_TEST_ACP_AGENT` may name another agent's.
 */
export const REAL_ACP_AGENT =
  process.env.CONTROL_CENTER_TEST_ACP_AGENT ?? fileURLToPath(new URL('../../node_modules/@zed-industries/claude-agent-acp/dist/index.js', import.meta.url));
