import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { makeReviewRepo } from '../support/review-repo.js';

/**
 * SEC-10, SEC-11: a review gate runs the change's own code (its tests, its scripts), which may print
 * without end. The server kept every byte of a gate's output: 600 MB took the server from ~200 MiB to
 * ~2 GiB and the gate then failed on "Cannot create a string longer than …" without a result. Only the
 * last words of each stream are kept now, as they arrive, and the gate's verdict stands. The real
 * server's review gates, in the real sandbox.
 */
let fixture: HarnessFixture | null = null;
const dirs: string[] = [];
afterEach(async () => {
  await fixture?.dispose();
  fixture = null;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('a review gate that prints without end (SEC-10)', () => {
  it('600 MB of output: the gate passes on its exit status and its output is the cut tail with its last words', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const f = fixture;
    const api = (method: string, path: string, body?: unknown) => f.server.api(method, `/api/workspaces/${f.workspaceId}${path}`, body);
    const { repo } = await makeReviewRepo();
    dirs.push(repo);
    const opened = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature' });
    expect(opened.status).toBe(201);
    const command = 'yes "the change prints this line forever" | head -c 600M; echo "the last words"';
    expect((await api('PUT', '/review-gates', { repoPath: repo, gates: [{ name: 'flood', command }] })).status).toBe(200);
    const gates = await api('POST', `/reviews/${opened.body.review.id}/gates/run`);
    expect(gates.status).toBe(200);
    const [gate] = gates.body.results as Array<{ status: string; output: string }>;
    expect(gate!.output.slice(-200)).toContain('the last words');
    expect(gate!.status).toBe('pass');
    expect(gate!.output.startsWith('[…]')).toBe(true);
    expect(gate!.output.length).toBeLessThan(20_000);
  }, 180_000);
});
