/**
 * TRUTH-3: a review verdict says what it has evidence for. An agent axis (correctness, security,
 * tests) passes only with an explicit assessment recorded with the axis, or a gate of that name that
 * ran on this head and passed; otherwise it is "not assessed" and the verdict is at most hold, naming
 * what is missing. Real server, real git repository, real reviewer runs on the built-in harness; the
 * model is the scripted stand-in.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { git } from '../../support/review-repo.js';
import { reply, type ScriptedRequest } from '../../support/scripted-reply.js';

let fixture: HarnessFixture;
let repo: string | null = null;
afterEach(async () => {
  await fixture?.dispose();
  if (repo) await rm(repo, { recursive: true, force: true });
  repo = null;
});

const api = (method: string, path: string, body?: unknown) => fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);
const reviewer = (name: string) => (request: ScriptedRequest) => request.allText.includes(`You are ${name}, reviewing`);
const REVIEWERS = ['qa', 'architect', 'engineer'];

/** A repository whose `feature` branch adds a calculator that evaluates its input with eval(). */
async function makeEvalRepo(): Promise<{ repo: string; featureSha: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'cc-verdict-evidence-'));
  git(dir, 'init', '-q', '-b', 'main');
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 'calc.js'), 'export const version = 1;\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'initial');
  git(dir, 'checkout', '-q', '-b', 'feature');
  await writeFile(join(dir, 'src', 'calc.js'), 'export const version = 1;\n\nexport function calculate(input) {\n  return eval(input);\n}\n');
  git(dir, 'commit', '-qam', 'calculate() with eval');
  const featureSha = git(dir, 'rev-parse', 'HEAD');
  git(dir, 'checkout', '-q', 'main');
  return { repo: dir, featureSha };
}

async function dispatchAndWait(reviewId: string): Promise<void> {
  const dispatched = await api('POST', `/reviews/${reviewId}/dispatch`, { reviewers: REVIEWERS });
  expect(dispatched.status).toBe(202);
  const runIds = dispatched.body.dispatched.map((entry: any) => entry.runId as string);
  expect(runIds.every(Boolean)).toBe(true);
  const runs = await Promise.all(runIds.map((runId: string) => fixture.waitForRun(runId, 30_000)));
  for (const run of runs) expect(run.run.state).toBe('completed');
}

const axisOf = (verdict: any, axis: string) => verdict.axes.find((entry: any) => entry.axis === axis);

describe('review verdicts need evidence (TRUTH-3)', () => {
  it('three reviewers answering only "OK", no gate: not ship, every agent axis "not assessed", the reasons name what is missing', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const made = await makeEvalRepo();
    repo = made.repo;
    for (const name of REVIEWERS) fixture.model.scriptFor(reviewer(name), reply().text('OK'));
    const opened = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature', title: 'calculate()' });
    expect(opened.status).toBe(201);
    const reviewId = opened.body.review.id;
    await dispatchAndWait(reviewId);

    const finalized = await api('POST', `/reviews/${reviewId}/finalize`, {});
    expect(finalized.status).toBe(200);
    const verdict = finalized.body.verdict;
    expect(verdict.verdict).not.toBe('ship');
    expect(verdict.verdict).toBe('hold');
    expect(verdict.confidence).toBeLessThan(1);
    for (const axis of ['correctness', 'security', 'tests']) {
      expect(axisOf(verdict, axis)).toMatchObject({ kind: 'agent', status: 'notAssessed' });
      expect(verdict.reasons).toContainEqual(expect.stringMatching(new RegExp(`^axis ${axis} was not assessed: no reviewer recorded an assessment of ${axis} for head ${made.featureSha.slice(0, 10)}`)));
    }
    expect(verdict.axes.filter((axis: any) => axis.status === 'pass')).toEqual([]);
    expect((await api('GET', `/reviews/${reviewId}/assessments`)).body.assessments).toEqual([]);

    // The reviewers were told how to give evidence, and had the tool to do it.
    const first = fixture.model.requests.find(reviewer('qa'))!;
    expect(first.toolNames).toContain('assess_review_axis');
    expect(first.lastUserText).toMatch(/answering "OK" assesses nothing/);
  });

  it('a gate that passed on this head and explicit assessments through the reviewers\' tool: ship, each axis showing its evidence', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const made = await makeEvalRepo();
    repo = made.repo;
    expect((await api('PUT', '/review-gates', { repoPath: repo, gates: [{ name: 'tests', command: 'grep -q calculate src/calc.js && echo calc-present' }] })).status).toBe(200);
    fixture.model.scriptFor(
      reviewer('qa'),
      reply().tool('assess_review_axis', { axis: 'correctness', assessment: 'pass', basis: 'calculate() returns the evaluated expression for the inputs its callers pass' }),
      reply().text('done'),
    );
    fixture.model.scriptFor(
      reviewer('architect'),
      reply().tool('assess_review_axis', { axis: 'security', assessment: 'pass', basis: 'calculate() is only reachable from the build script, never with user input' }),
      reply().text('done'),
    );
    fixture.model.scriptFor(reviewer('engineer'), reply().text('OK'));
    const opened = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature' });
    const reviewId = opened.body.review.id;
    await dispatchAndWait(reviewId);
    const qaResults = fixture.model.requests.filter(reviewer('qa')).map((request) => request.lastToolResult?.content ?? '');
    expect(qaResults).toContainEqual(expect.stringMatching(`^Recorded: correctness pass for head ${made.featureSha.slice(0, 10)}`));

    // Before the gate ran, the tests axis has no evidence.
    const before = (await api('GET', `/reviews/${reviewId}/verdict`)).body.current;
    expect(before.verdict).toBe('hold');
    expect(axisOf(before, 'tests')).toMatchObject({ kind: 'agent', status: 'notAssessed' });

    const ran = await api('POST', `/reviews/${reviewId}/gates/run`);
    expect(ran.body.results).toEqual([expect.objectContaining({ name: 'tests', status: 'pass', exitCode: 0, headSha: made.featureSha })]);
    const finalized = (await api('POST', `/reviews/${reviewId}/finalize`, {})).body.verdict;
    expect(finalized).toMatchObject({ verdict: 'ship', reasons: [] });
    expect(axisOf(finalized, 'correctness')).toMatchObject({ status: 'pass', detail: expect.stringMatching(/^assessed by qa: calculate\(\) returns/) });
    expect(axisOf(finalized, 'security')).toMatchObject({ status: 'pass', detail: expect.stringMatching(/^assessed by architect: /) });
    expect(axisOf(finalized, 'tests')).toMatchObject({ kind: 'agent', status: 'pass', detail: `gate tests passed on ${made.featureSha.slice(0, 10)}` });
    const assessments = (await api('GET', `/reviews/${reviewId}/assessments`)).body.assessments;
    // Listed oldest first; the two reviewers run at once, so which of them assessed first is not fixed.
    const byAxis = [...assessments].sort((left: any, right: any) => left.axis.localeCompare(right.axis));
    expect(byAxis.map((entry: any) => [entry.axis, entry.assessment, entry.by, entry.headSha])).toEqual([
      ['correctness', 'pass', 'qa', made.featureSha],
      ['security', 'pass', 'architect', made.featureSha],
    ]);
  });

  it('a gate and assessments of an older head are not evidence for the new head', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const made = await makeEvalRepo();
    repo = made.repo;
    await api('PUT', '/review-gates', { repoPath: repo, gates: [{ name: 'tests', command: 'true' }] });
    const opened = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature' });
    const reviewId = opened.body.review.id;
    for (const axis of ['correctness', 'security']) {
      expect((await api('POST', `/reviews/${reviewId}/assessments`, { axis, assessment: 'pass', basis: `read all of src/calc.js for ${axis}` })).status).toBe(201);
    }
    await api('POST', `/reviews/${reviewId}/gates/run`);
    expect((await api('GET', `/reviews/${reviewId}/verdict`)).body.current.verdict).toBe('ship');

    // The head moves: a second round of the same review.
    git(repo, 'checkout', '-q', 'feature');
    await writeFile(join(repo, 'src', 'calc.js'), 'export const version = 2;\n\nexport function calculate(input) {\n  return eval(input);\n}\n');
    git(repo, 'commit', '-qam', 'bump');
    git(repo, 'checkout', '-q', 'main');
    const second = await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature' });
    expect(second.body).toMatchObject({ reReview: true, review: { round: 2 } });
    const newHead = second.body.review.headSha as string;
    expect(newHead).not.toBe(made.featureSha);

    const verdict = (await api('GET', `/reviews/${reviewId}/verdict`)).body.current;
    expect(verdict.verdict).toBe('hold');
    expect(axisOf(verdict, 'correctness')).toMatchObject({ kind: 'agent', status: 'notAssessed' });
    expect(axisOf(verdict, 'security')).toMatchObject({ kind: 'agent', status: 'notAssessed' });
    expect(axisOf(verdict, 'tests')).toMatchObject({ kind: 'agent', status: 'notAssessed' });
    expect(verdict.axes.find((axis: any) => axis.kind === 'gated')).toMatchObject({ axis: 'tests', status: 'notRun', detail: 'not run for this head yet' });
    expect(verdict.reasons.join('\n')).toContain(`no reviewer recorded an assessment of correctness for head ${newHead.slice(0, 10)}`);
    expect((await api('GET', `/reviews/${reviewId}/assessments`)).body.assessments).toEqual([]);
  });

  it('an assessment with a bad axis, assessment or no basis is a 400 naming the field and records nothing', async () => {
    fixture = await startHarnessFixture({ operatorConnected: false });
    const made = await makeEvalRepo();
    repo = made.repo;
    const reviewId = (await api('POST', '/reviews', { repoPath: repo, base: 'main', head: 'feature' })).body.review.id;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ axis: 'Security!', assessment: 'pass', basis: 'x' }, 'axis'],
      [{ axis: 'security', assessment: 'probably', basis: 'x' }, 'assessment'],
      [{ axis: 'security', assessment: 'pass', basis: '   ' }, 'basis'],
      [{ axis: 'security', assessment: 'pass' }, 'basis'],
    ];
    for (const [body, field] of cases) {
      const response = await api('POST', `/reviews/${reviewId}/assessments`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.field).toBe(field);
    }
    expect((await api('GET', `/reviews/${reviewId}/assessments`)).body.assessments).toEqual([]);
    expect((await api('POST', '/reviews/rev_nope/assessments', { axis: 'security', assessment: 'pass', basis: 'x' })).status).toBe(404);
  });
});
