import type { AgentTransport, TransportRunContext } from '../../src/adapters/agent-transport.js';
import { GROK_CAPABILITIES } from '../../src/adapters/grok/grok-capabilities.js';
import { emptyUsage } from '../../src/adapters/runner-setup.js';
import type { ClaudeCodeFixture } from './claude-code-fixture.js';

/**
 * A transport at the ADP-1 seam for tests of the server's run controls: it declares what the Grok
 * transport declares (steer, pause, cancel) and holds its turn open until `finish()` or a cancel, so a
 * test can act on the run in progress with its context in hand (its run token, `closeSteering`).
 */
export interface HeldTransport {
  transport: AgentTransport;
  finish(): void;
  /** Sends a message to the fixture's agent and waits until this transport holds the turn. */
  start(f: ClaudeCodeFixture): Promise<{ runId: string; ctx: TransportRunContext }>;
}

export function heldTransport(): HeldTransport {
  let context: TransportRunContext | null = null;
  let finish: () => void = () => undefined;
  const transport: AgentTransport = {
    id: 'grok',
    capabilities: GROK_CAPABILITIES,
    // Its token spends what a Grok run's does (SEC-8).
    modelProvider: () => 'xai',
    run: async (ctx) => {
      context = ctx;
      await new Promise<void>((resolve) => {
        finish = resolve;
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      return { outcome: ctx.signal.aborted ? 'cancelled' : 'completed', error: null, deliverableFailed: false, usage: emptyUsage(), costUsd: null, finalText: 'Done.' };
    },
  };
  return {
    transport,
    finish: () => finish(),
    async start(f) {
      const runId = await f.send('hello');
      const deadline = Date.now() + 30_000;
      while (!context && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const ctx = context as TransportRunContext | null;
      if (!ctx) throw new Error('the held transport never started');
      return { runId, ctx };
    },
  };
}
