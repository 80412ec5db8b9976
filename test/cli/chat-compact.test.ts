/**
 * CTX-1, CTX-2 from the command line: `control-center chat --conversation … "/compact <focus>"` as a
 * real child process prints the compaction's summary line — why, tokens before → after, its cost as
 * the run recorded it — and the summary when the compaction event arrives; `/context` prints what
 * filled the window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-runner.js';
import { reply, startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let model: ScriptedModelServer;
let ws: string;

const api = async (method: string, path: string, body?: unknown) => (await server.api(method, `/api/workspaces/${ws}${path}`, body)).body;
const chat = (...args: string[]) => runCli(server.dataRoot, '--url', server.url, '--token', server.token, 'chat', '--workspace', ws, ...args);

beforeAll(async () => {
  server = await startTestServer();
  model = await startScriptedModelServer();
  ws = (await createSeededWorkspace(server, 'Compacting')).id;
  await api('PATCH', '/settings', { apiKeys: { anthropic: 'scripted-key' }, baseUrls: { anthropic: model.url } });
}, 120_000);

afterAll(async () => {
  await model?.close();
  await server?.dispose();
});

describe('control-center chat: /compact and /context', () => {
  it('/compact <focus> prints the summary line with its recorded cost and the summary; /context prints the window', async () => {
    model.script(reply().text('First answer.'));
    const first = await chat('--mode', 'autopilot', 'first question');
    expect(first.code, first.stderr).toBe(0);
    const conversationId = /conversation (\S+) in space/.exec(first.stderr)![1]!;

    const context = await chat('--conversation', conversationId, '/context');
    expect(context.code, context.stderr).toBe(0);
    expect(context.stdout).toMatch(/- tools: \d+ tokens/);

    model.scriptFor((request) => (request.lastUserText ?? '').includes('hand-over summary'), reply().text('SUMMARY-4412: one question, one answer.').usage({ input: 9_000, output: 40 }));
    const compacted = await chat('--conversation', conversationId, '/compact the first question');
    expect(compacted.code, compacted.stderr).toBe(0);
    const runId = /run (\S+)/.exec(compacted.stderr)![1]!;
    const event = (await api('GET', `/runs/${runId}`)).events.find((record: any) => record.type === 'context_compacted').data;
    const headline = `Context compacted — summary (asked with /compact; focus: the first question): ${event.replacedMessages} earlier messages replaced, ${event.keptMessages} kept; ${event.tokensBefore} → ${event.tokensAfter} tokens; cost $${event.costUsd.toFixed(4)}, 9000 tokens in, 40 out.`;
    expect(compacted.stdout).toContain(headline);
    expect(compacted.stdout.indexOf('SUMMARY-4412: one question, one answer.')).toBeGreaterThan(compacted.stdout.indexOf(headline));
  }, 120_000);
});
