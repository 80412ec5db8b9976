import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeReviewRepo } from '../support/review-repo.js';
import { createSeededWorkspace, startTestServer, type TestServer } from '../support/test-server.js';

let server: TestServer;
let workspaceId: string;
let repo: string;
let token: string;
const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);

beforeAll(async () => {
  server = await startTestServer();
  workspaceId = (await createSeededWorkspace(server, 'Hostile')).id;
  repo = (await makeReviewRepo()).repo;
  token = (await readFile(join(server.dataRoot, 'operator-token'), 'utf8')).trim();
}, 120_000);

afterAll(async () => {
  await server?.dispose();
  await rm(repo, { recursive: true, force: true });
});

describe('review mode against hostile input (SEC-2, REV-1, REV-4)', () => {
  it('option-shaped refs are refused before git sees them: nothing is written', async () => {
    const marker = join(repo, 'pwned-output');
    for (const [field, ref] of [
      ['head', `--output=${marker}`],
      ['base', `--output=${marker}`],
      ['head', '-p'],
      ['base', 'main\u0000--output=x'],
    ] as const) {
      const response = await api('POST', '/reviews', { repoPath: repo, base: field === 'base' ? ref : 'main', head: field === 'head' ? ref : 'feature' });
      expect(response.status).toBe(400);
      expect(response.body.error.field).toBe(field);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('gate commands run in the sandbox on a disposable copy: no operator token, no writes to the repository, the review checkout untouched', async () => {
    const opened = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature' });
    expect(opened.status).toBe(201);
    const reviewId = opened.body.review.id;
    await api('PUT', '/review-gates', {
      repoPath: repo,
      gates: [
        { name: 'steal', command: `cat ${join(server.dataRoot, 'operator-token')}` },
        { name: 'escape', command: `touch ${join(repo, 'escaped')}` },
        { name: 'scribble', command: 'echo changed > src/math.js && git status --porcelain' },
      ],
    });
    const results = (await api('POST', `/reviews/${reviewId}/gates/run`)).body.results as Array<{ name: string; status: string; output: string }>;
    const byName = Object.fromEntries(results.map((result) => [result.name, result]));
    expect(byName.steal!.status).toBe('fail');
    expect(byName.steal!.output).not.toContain(token);
    // The repository sits under /tmp here, which the sandbox replaces with a private one: the write lands nowhere.
    expect(existsSync(join(repo, 'escaped'))).toBe(false);
    // The copy is writable (tests may write build output) but it is not the review's checkout.
    expect(byName.scribble!.status).toBe('pass');
    const checkout = join((await server.running.app.workspaces.handle(workspaceId)).dir, 'worktrees', `${reviewId}-r1`, 'src', 'math.js');
    expect(await readFile(checkout, 'utf8')).toContain('return a - b;');
  });

  it('anchors cannot name paths outside the diff (traversal, absolute, prototype keys)', async () => {
    const reviewId = (await api('GET', '/reviews')).body.reviews[0].id;
    for (const path of ['../../etc/passwd', '/etc/passwd', '__proto__', 'constructor', 'src/../src/math.js']) {
      const response = await api('POST', `/reviews/${reviewId}/findings`, { type: 'bug', priority: 'P1', confidence: 0.5, body: 'x', anchor: { path, startLine: 3, endLine: 3 } });
      expect(response.status, path).toBe(400);
      expect(response.body.error.field).toBe('anchor');
    }
  });

  it('finding text cannot inject markup into the Markdown export', async () => {
    const reviewId = (await api('GET', '/reviews')).body.reviews[0].id;
    const added = await api('POST', `/reviews/${reviewId}/findings`, { type: 'bug', priority: 'P2', confidence: 0.5, body: '<img src=x onerror=alert(1)>\n# Verdict: SHIP\n[click](javascript:alert(1))' });
    expect(added.status).toBe(201);
    const response = await fetch(`${server.url}/api/workspaces/${workspaceId}/reviews/${reviewId}/export.md`, { headers: { authorization: `Bearer ${server.token}` } });
    const text = await response.text();
    expect(text).not.toContain('<img');
    expect(text).not.toMatch(/^# Verdict: SHIP/m);
    expect(text).not.toContain('[click](');
  });
});
