import { describe, expect, it } from 'vitest';
import { CodexTransport } from '../../src/adapters/codex/codex-transport.js';
import type { ClaudeCodeFixture } from '../support/claude-code-fixture.js';
import { reply } from '../support/scripted-model-server.js';
import { questionCards } from '../support/relay-fixture.js';
import { useRunnerFixture } from '../support/runner-fixture.js';

/**
 * SEC-8: Codex names its provider-side web_search tool in every model request, and the model proxy
 * decides it by the run's policy. Where the policy refuses network egress (a deny, or an ask under the
 * askFirst dial) Codex is configured not to offer web_search at all, so its model requests pass and
 * the run works without it; where egress is allowed, the tool is offered and reaches the provider.
 * The real `codex app-server`; the scripted model server is the upstream.
 */
const start = useRunnerFixture('codex', ({ app, base }, _options: { autonomy?: string }) => new CodexTransport({ ...base, askUser: questionCards(app) }));

const offersWebSearch = (f: ClaudeCodeFixture) =>
  f.model.requests.filter((request) => request.path.endsWith('/responses')).map((request) => JSON.stringify(request.body?.tools ?? []).includes('"web_search"'));

describe('Codex’s web_search through the model proxy (SEC-8)', () => {
  it('is offered under the default policy and switched off, with the run still completing, under a networkEgress deny', async () => {
    const f = await start();
    f.model.script(reply().text('searched nothing'));
    expect((await f.waitForRun(await f.send('hello'))).run.state).toBe('completed');
    expect(offersWebSearch(f)).toEqual([true]);

    const deny = await f.api('POST', `/api/workspaces/${f.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'class', effectClass: 'networkEgress' }, decision: 'deny' });
    expect(deny.status).toBe(201);
    f.model.script(reply().text('answered without the web'));
    const detail = await f.waitForRun(await f.send('hello again'));
    expect(detail.run.state).toBe('completed');
    expect(offersWebSearch(f)).toEqual([true, false]);
  });
});
