import { BubblewrapSandbox, probeBubblewrap } from './bubblewrap-sandbox.js';
import type { SandboxBackend } from './sandbox-spec.js';
import { SeatbeltSandbox } from './seatbelt-profile.js';

/** The backend for this host, or why there is none (the SBX-2 fallback applies then). */
export type SandboxSelection = { backend: SandboxBackend; detail: string } | { backend: null; detail: string };

/**
 * Bubblewrap on Linux when `bwrap` and `socat` exist and a probe sandbox starts; Seatbelt on macOS
 * when `sandbox-exec` exists; otherwise none, with the reason (recorded in the run log as
 * `none: <reason>`).
 */
export async function selectSandbox(options: { platform?: NodeJS.Platform; bwrap?: string } = {}): Promise<SandboxSelection> {
  const platform = options.platform ?? process.platform;
  if (platform === 'linux') {
    const probe = await probeBubblewrap(options.bwrap ? { bwrap: options.bwrap } : {});
    return probe.available ? { backend: new BubblewrapSandbox(options.bwrap), detail: probe.detail } : { backend: null, detail: probe.detail };
  }
  if (platform === 'darwin') {
    const { existsSync } = await import('node:fs');
    return existsSync('/usr/bin/sandbox-exec')
      ? { backend: new SeatbeltSandbox(), detail: 'sandbox-exec' }
      : { backend: null, detail: '/usr/bin/sandbox-exec is missing' };
  }
  return { backend: null, detail: `no sandbox backend for ${platform}` };
}

/**
 * What a configured sandbox choice stands for: `none` — no backend, by configuration; `auto` — the
 * host's ({@link selectSandbox}); a backend — that one. Callers keep the promise, so the host is
 * probed once per consumer.
 */
export function configuredSandbox(choice: 'auto' | 'none' | SandboxBackend): Promise<SandboxSelection> {
  if (choice === 'none') return Promise.resolve({ backend: null, detail: 'disabled by configuration' });
  if (choice === 'auto') return selectSandbox();
  return Promise.resolve({ backend: choice, detail: choice.id });
}
