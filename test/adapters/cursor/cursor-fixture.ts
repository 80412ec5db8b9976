import { CursorTransport, type CursorTransportOptions } from '../../../src/adapters/cursor/cursor-transport.js';
import { CommandSandbox } from '../../../src/sandbox/command-sandbox.js';
import { startClaudeCodeFixture, type ClaudeCodeFixture } from '../../support/claude-code-fixture.js';
import { FakeCursorSdk } from '../../support/fake-cursor-sdk.js';
import { questionCards } from '../../support/relay-fixture.js';

/** A real Control Center over HTTP with a Cursor agent whose SDK is the fake at the transport's seam. */
export interface CursorFixture extends ClaudeCodeFixture {
  sdk: FakeCursorSdk;
}

export async function startCursorFixture(options: { mode?: 'chat' | 'plan'; autonomy?: string; transport?: Partial<CursorTransportOptions>; env?: Record<string, string> } = {}): Promise<CursorFixture> {
  const sdk = new FakeCursorSdk();
  const fixture = await startClaudeCodeFixture({
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.autonomy ? { autonomy: options.autonomy } : {}),
    env: { CURSOR_API_KEY: 'test-cursor-key', ...options.env },
    adapter: {
      id: 'cursor',
      transport: (app, dataRoot) =>
        new CursorTransport({
          hookSessions: app.hookSessions,
          commandSandbox: new CommandSandbox({ sandbox: 'none', hiddenPaths: [dataRoot] }),
          askUser: questionCards(app),
          allowUnsandboxed: true,
          sdk,
          ...options.transport,
        }),
    },
  });
  return Object.assign(fixture, { sdk });
}

/** The run's events of one type, as the run detail route returns them. */
export function eventsOf(detail: { events: Array<{ type: string; data: any }> }, type: string): any[] {
  return detail.events.filter((event) => event.type === type).map((event) => event.data);
}
