/**
 * MODE-5 through the real server: a `messaging.createSpace` node pins its room's mode only with
 * `extras.mode` exactly `chat`, `review` or `plan`. Every other spelling — a mode that grants more
 * (`orchestrate`), case and whitespace variants, look-alike keys, non-strings, a `mode` smuggled in
 * through `__proto__` — is ignored at run time (the room opens in `review`) and flagged by the
 * validator as a warning on its node.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';

let fixture: HarnessFixture | null = null;
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
});

/** Raw JSON so `__proto__` arrives as the own key a hostile client would send, not as a prototype. */
const SPELLINGS: Array<[key: string, extrasJson: string, mode: 'chat' | 'review' | 'plan']> = [
  ['exactchat', '{"mode":"chat"}', 'chat'],
  ['exactplan', '{"mode":"plan"}', 'plan'],
  ['exactreview', '{"mode":"review"}', 'review'],
  ['orchestrate', '{"mode":"orchestrate"}', 'review'],
  ['upper', '{"mode":"Chat"}', 'review'],
  ['shout', '{"mode":"PLAN"}', 'review'],
  ['padded', '{"mode":" plan"}', 'review'],
  ['trailing', '{"mode":"chat\\u0000"}', 'review'],
  ['array', '{"mode":["plan"]}', 'review'],
  ['number', '{"mode":1}', 'review'],
  ['nullmode', '{"mode":null}', 'review'],
  ['lookalike', '{"conversationMode":"chat"}', 'review'],
  ['dispatch', '{"dispatchMode":"plan"}', 'review'],
  ['capital', '{"Mode":"chat"}', 'review'],
  ['proto', '{"__proto__":{"mode":"chat"}}', 'review'],
];

const definitionJson = (): string =>
  `{"name":"modes","nodes":[${SPELLINGS.map(([key, extras]) => `{"key":"${key}","type":"messaging.createSpace","name":"Room ${key}","extras":${extras}}`).join(',')}]}`;

async function postRaw(f: HarnessFixture, path: string, body: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${f.server.url}/api/workspaces/${f.workspaceId}${path}`, { method: 'POST', headers: { authorization: `Bearer ${f.server.token}`, 'content-type': 'application/json' }, body });
  return { status: response.status, body: await response.json() };
}

describe("MODE-5: extras['mode'] spellings through the real engine", () => {
  it('only an exact chat|review|plan pins the room; every other spelling opens it in review and is a validator warning on its node', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const validated = await postRaw(f, '/pipelines/validate', definitionJson());
    expect(validated.status).toBe(200);
    expect(validated.body.errors).toEqual([]);
    const warned = new Set(validated.body.warnings.filter((warning: any) => warning.code === 'mode_ignored').map((warning: any) => warning.nodeKey));
    const ignored = SPELLINGS.filter(([key]) => !key.startsWith('exact')).map(([key]) => key);
    // `__proto__` never becomes an own key of extras, so there is nothing to warn about there — and nothing pinned.
    expect([...warned].sort()).toEqual(ignored.filter((key) => key !== 'proto').sort());

    const created = await postRaw(f, '/pipelines', definitionJson());
    expect(created.status).toBe(201);
    const started = await f.server.api('POST', `/api/workspaces/${f.workspaceId}/pipelines/${created.body.pipeline.id}/runs`, {});
    expect(started.status).toBe(201);
    let run: any;
    for (let attempt = 0; attempt < 400; attempt += 1) {
      run = (await f.server.api('GET', `/api/workspaces/${f.workspaceId}/pipeline-runs/${started.body.id}`)).body;
      if (run.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(run.status).toBe('completed');
    for (const [key, , mode] of SPELLINGS) {
      const output = run.nodes.find((node: any) => node.key === key).output;
      const space = (await f.server.api('GET', `/api/workspaces/${f.workspaceId}/spaces/${output.spaceId}`)).body;
      expect({ key, output: output.mode, space: space.mode }).toEqual({ key, output: mode, space: mode });
    }
  });
});
