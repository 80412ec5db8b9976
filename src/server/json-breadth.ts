import { scanJsonStructure } from './json-nesting.js';

/**
 * How wide a JSON request body from an agent may be (SEC-10): object members (keys) and values in
 * all, counted before `JSON.parse`. Width costs as much as depth: V8 parses an object of 100,000
 * keys (1.5 MB) in ~0.4 s and the MCP SDK's schema walks every key again, so 5 MiB of keys held the
 * event loop for ~5.7 s on `/mcp` — one agent stalling every request of the server. Real bodies
 * (tool inputs, JSON-RPC calls, hook inputs) hold tens to hundreds of members; the caps are far above.
 */
export const AGENT_JSON_LIMITS = { members: 10_000, values: 100_000 } as const;

const COLON = 0x3a;
const COMMA = 0x2c;

/**
 * Why `text` is wider than `limits` (object members, and values separated by commas), or null; one
 * linear pass that skips string contents, run before `JSON.parse`.
 */
export function jsonBreadthProblem(text: string, limits: { members: number; values: number } = AGENT_JSON_LIMITS): string | null {
  let members = 0;
  let separators = 0;
  let problem: string | null = null;
  scanJsonStructure(text, (code) => {
    if (code === COLON && ++members > limits.members) problem = `request body holds more than ${limits.members} object members, the most an agent's request may hold`;
    else if (code === COMMA && ++separators >= limits.values) problem = `request body holds more than ${limits.values} values, the most an agent's request may hold`;
    return problem !== null;
  });
  return problem;
}
