import type { SandboxLauncher, SandboxSpec } from './sandbox-spec.js';
import { WarmSandbox, type WarmSandboxHelper } from './warm-sandbox.js';

/** What makes two runs share a warm sandbox: the same conversation and the very same sandbox spec. */
export interface WarmSandboxKey {
  conversationId: string;
  spec: Omit<SandboxSpec, 'command' | 'args'>;
}

/**
 * The warm sandboxes of a server, one per conversation and mount set (`warm-sandbox.ts`). A sandbox
 * is never shared between conversations, and a run whose mounts differ from the conversation's warm
 * sandbox (another checkout, a read-only mode, other relay ports) gets a new one; the previous one
 * ends with its idle stop (a run still using it is not cut off).
 */
export class WarmSandboxPool {
  private readonly sandboxes = new Map<string, Promise<WarmSandbox>>();

  constructor(
    private readonly idleMs: number,
    private readonly helper: WarmSandboxHelper = 'auto',
  ) {}

  /** The conversation's warm sandbox for these mounts, prepared from `launcher` when there is none. */
  async acquire(key: WarmSandboxKey, launcher: () => Promise<SandboxLauncher>): Promise<WarmSandbox> {
    const id = `${key.conversationId}\0${JSON.stringify(key.spec)}`;
    let sandbox = this.sandboxes.get(id);
    if (!sandbox) {
      sandbox = launcher().then((launch) =>
        WarmSandbox.prepare(launch, {
          idleMs: this.idleMs,
          helper: this.helper,
          onClosed: () => {
            if (this.sandboxes.get(id) === sandbox) this.sandboxes.delete(id);
          },
        }),
      );
      this.sandboxes.set(id, sandbox);
      // A launcher that failed is not cached: the next run tries again.
      sandbox.catch(() => {
        if (this.sandboxes.get(id) === sandbox) this.sandboxes.delete(id);
      });
    }
    return sandbox;
  }

  /** How many warm sandboxes are prepared (for tests and measurements). */
  get size(): number {
    return this.sandboxes.size;
  }

  /** Stops every warm sandbox (server stop). */
  async closeAll(): Promise<void> {
    const all = [...this.sandboxes.values()];
    this.sandboxes.clear();
    for (const sandbox of await Promise.allSettled(all)) if (sandbox.status === 'fulfilled') sandbox.value.close();
  }
}
