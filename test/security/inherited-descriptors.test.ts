import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeBubblewrap } from '../../src/sandbox/bubblewrap-sandbox.js';
import { makeReviewRepo } from '../support/review-repo.js';
import { startServeOn, type ServeProcess } from '../support/serve-process.js';
import { makeDataRoot } from '../support/test-server.js';

/**
 * SEC-11: a process an agent causes inherits no descriptor it was not given. Whoever starts the
 * server may leave descriptors open without close-on-exec (a service manager, a wrapper script, a
 * test runner); a descriptor on a file the sandbox hides is a way around the sandbox, through
 * /proc/self/fd/N, for anything that inherits it. The real `serve` runs as a child process here with
 * two such descriptors (9 and 42, on a file in its data root, which every sandbox hides), and a review
 * gate and a pipeline script each list their own descriptors and try to read both.
 */
const probe = await probeBubblewrap();
const SECRET = `inherited-secret-${process.pid}`;
/**
 * What a process the command starts inherits: the descriptors of a child bash (not `ls`'s, which
 * holds one more for the directory it lists; not the gate's dash, which keeps one of its own,
 * close-on-exec; not a shell running a pipeline, which holds the pipe), then the two reads.
 */
const PROBE = `bash -c 'ls /proc/$$/fd > /tmp/cc-fds; :'; sort -n /tmp/cc-fds | tr "\\n" " "; echo; cat /proc/self/fd/9 /proc/self/fd/42 2>&1; true`;

let server: ServeProcess;
let workspaceId: string;
const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);

beforeAll(async () => {
  if (!probe.available) return;
  const dataRoot = await makeDataRoot();
  const secretPath = join(dataRoot, 'inherited-secret.txt');
  writeFileSync(secretPath, SECRET);
  const fd = openSync(secretPath, 'r');
  try {
    server = await startServeOn(dataRoot, {}, [], { 9: fd, 42: fd });
  } finally {
    closeSync(fd);
  }
  const created = await server.api('POST', '/api/workspaces', { name: 'Descriptors' });
  expect(created.status).toBe(201);
  workspaceId = created.body.id;
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

function expectOnlyStdio(output: string): void {
  expect(output).not.toContain(SECRET);
  expect(output.split('\n')[0]!.trim()).toBe('0 1 2');
}

describe.skipIf(!probe.available)('no inherited descriptor reaches what an agent causes (SEC-11)', () => {
  it('a review gate holds 0, 1 and 2 only, and cannot read the server’s inherited descriptors', async () => {
    const { repo } = await makeReviewRepo();
    const opened = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature' });
    expect(opened.status).toBe(201);
    expect((await api('PUT', '/review-gates', { repoPath: repo, gates: [{ name: 'descriptors', command: PROBE }] })).status).toBe(200);
    const ran = await api('POST', `/reviews/${opened.body.review.id}/gates/run`);
    expect(ran.status).toBe(200);
    const [gate] = ran.body.results as Array<{ name: string; status: string; output: string }>;
    expect(gate!.status).toBe('pass');
    expectOnlyStdio(gate!.output);
  });

  it('a pipeline script holds 0, 1 and 2 only, and cannot read the server’s inherited descriptors', async () => {
    const created = await api('POST', '/pipelines', { name: 'descriptors', nodes: [{ key: 'probe', type: 'bashScript', script: PROBE }] });
    expect(created.status).toBe(201);
    const started = await api('POST', `/pipelines/${created.body.pipeline.id}/runs`, {});
    let run = (await api('GET', `/pipeline-runs/${started.body.id}`)).body;
    for (let attempt = 0; attempt < 400 && run.status === 'running'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      run = (await api('GET', `/pipeline-runs/${started.body.id}`)).body;
    }
    const node = run.nodes.find((entry: { key: string }) => entry.key === 'probe');
    expect(node.state).toBe('done');
    expectOnlyStdio(node.output.stdout);
  });
});
