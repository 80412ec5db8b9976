import { afterEach } from 'vitest';
import type { AgentTransport } from '../../src/adapters/agent-transport.js';
import type { RunnerTransportOptions } from '../../src/adapters/runner-setup.js';
import type { ControlCenter } from '../../src/services/control-center.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture, type ClaudeCodeFixtureOptions } from './claude-code-fixture.js';

/** What a relay test chooses for its conversation: the agent's mode and autonomy (absent: the fixture's). */
export interface RunnerStartOptions {
  mode?: 'chat' | 'plan' | 'orchestrate';
  autonomy?: string;
}

/** What a relay test's transport is built from: the server, its data root, and the options every runner test shares. */
export interface RunnerBuildScope {
  app: ControlCenter;
  dataRoot: string;
  /**
   * The data root hidden from the runner, and no OS sandbox by the operator's opt-in (SBX-2), so the
   * tests run on any host; a test that needs the sandbox overrides `sandbox` and `allowUnsandboxed`.
   */
  base: Pick<RunnerTransportOptions, 'hookSessions' | 'hiddenPaths' | 'sandbox' | 'allowUnsandboxed'>;
}

/**
 * The set-up every relay runner's test file repeats: a real server (the Claude Code fixture) whose
 * agent runs on `adapterId`'s transport, one per test, disposed after each. Call it at the top of a
 * test file; it returns the `start` the tests call. `build` makes the transport from the scope and
 * the test's own options (its transport overrides, say).
 */
export function useRunnerFixture<Options extends RunnerStartOptions>(
  adapterId: NonNullable<ClaudeCodeFixtureOptions['adapter']>['id'],
  build: (scope: RunnerBuildScope, options: Options) => AgentTransport,
): (options?: Options) => Promise<ClaudeCodeFixture> {
  let fixture: ClaudeCodeFixture | null = null;
  afterEach(async () => {
    await fixture?.dispose();
    fixture = null;
  });
  return async (options = {} as Options) => {
    fixture = await startClaudeCodeFixture({
      ...(options.mode ? { mode: options.mode } : {}),
      ...(options.autonomy ? { autonomy: options.autonomy } : {}),
      adapter: {
        id: adapterId,
        transport: (app, dataRoot) => build({ app, dataRoot, base: { hookSessions: app.hookSessions, hiddenPaths: [dataRoot], sandbox: 'none', allowUnsandboxed: true } }, options),
      },
    });
    return fixture;
  };
}
