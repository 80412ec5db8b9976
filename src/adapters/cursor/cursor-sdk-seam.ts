import type { AgentOptions, LocalAgentStore, SDKAgent } from '@cursor/sdk';

/**
 * The part of `@cursor/sdk` the Cursor transport uses: create a local agent, resume one by id, and
 * the SDK's local state store. The transport takes it through its constructor so tests can stand a
 * fake in at exactly this seam (the real SDK needs Cursor's backend, which is not reachable here).
 */
export interface CursorSdk {
  create(options: AgentOptions): Promise<SDKAgent>;
  resume(agentId: string, options: AgentOptions): Promise<SDKAgent>;
  /**
   * The SDK's own state for one conversation: a JSONL store in `dir` (Node 20 has no `node:sqlite`,
   * and the SDK's default store would live in the server user's home, shared by every run).
   */
  store(dir: string): Promise<LocalAgentStore>;
}

/**
 * The real SDK, loaded on first use: the server starts without paying for it, and a host where it
 * cannot load fails only the Cursor runs (with the reason), not the server.
 */
export function realCursorSdk(): CursorSdk {
  const load = () => import('@cursor/sdk');
  return {
    create: async (options) => (await load()).Agent.create(options),
    resume: async (agentId, options) => (await load()).Agent.resume(agentId, options),
    store: async (dir) => new (await load()).JsonlLocalAgentStore(dir),
  };
}
