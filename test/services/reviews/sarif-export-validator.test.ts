/**
 * The review's SARIF export is accepted by Microsoft's own SARIF validator (`Sarif.Multitool
 * validate`, the @microsoft/sarif-multitool npm package) with no errors and no warnings: a file other
 * tools read has to be one they accept. Real server, real git repository, findings recorded through
 * the API by a person; the validator is the real .NET binary run on the export the server returned.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../../support/harness-fixture.js';
import { makeReviewRepo } from '../../support/review-repo.js';

const run = promisify(execFile);
/** The platform package's index exports the path of the single-file validator binary. */
const VALIDATOR: string = createRequire(import.meta.url)('@microsoft/sarif-multitool');

let fixture: HarnessFixture | undefined;
const cleanup: string[] = [];
afterEach(async () => {
  await fixture?.dispose();
  fixture = undefined;
  for (const dir of cleanup.splice(0)) await rm(dir, { recursive: true, force: true });
});

interface ValidatorResult {
  ruleId: string;
  level?: string;
  message: { text?: string; id?: string; arguments?: string[] };
}

/** Runs the validator on a SARIF file; returns its own SARIF log's results and tool notifications. */
async function validate(file: string, outDir: string): Promise<{ results: ValidatorResult[]; notifications: unknown[] }> {
  const output = join(outDir, 'validation.sarif');
  await run(VALIDATOR, ['validate', file, '--output', output, '--quiet'], { env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1' } });
  const log = JSON.parse(await readFile(output, 'utf8'));
  const validation = log.runs[0];
  const invocation = validation.invocations?.[0] ?? {};
  return { results: validation.results ?? [], notifications: [...(invocation.toolExecutionNotifications ?? []), ...(invocation.toolConfigurationNotifications ?? [])] };
}

describe('review SARIF export accepted by the SARIF validator', () => {
  it('a review with open, resolved and dismissed findings exports a log with 0 errors and 0 warnings', async () => {
    fixture = await startHarnessFixture();
    const made = await makeReviewRepo();
    cleanup.push(made.repo);
    const api = (method: string, path: string, body?: unknown) => fixture!.server.api(method, `/api/workspaces/${fixture!.workspaceId}${path}`, body);

    const opened = await api('POST', '/reviews', { repoPath: made.repo, base: 'main', head: 'feature', title: 'Add triple()', reviewers: [] });
    expect(opened.status).toBe(201);
    const reviewId = opened.body.review.id;
    const add = async (finding: Record<string, unknown>) => {
      const added = await api('POST', `/reviews/${reviewId}/findings`, finding);
      expect(added.status).toBe(201);
      return added.body.id as string;
    };
    await add({ type: 'bug', priority: 'P0', confidence: 0.9, body: 'add() subtracts.', anchor: { path: 'src/math.js', startLine: 3, endLine: 3 }, axis: 'correctness' });
    const resolved = await add({ type: 'recommendation', priority: 'P2', confidence: 0.6, body: 'triple() could be a * 3.', anchor: { path: 'src/math.js', startLine: 10, endLine: 11 } });
    const dismissed = await add({ type: 'question', priority: 'P3', confidence: 0.4, body: 'Is double() still needed?' });
    expect((await api('POST', `/reviews/${reviewId}/findings/${resolved}/resolve`, { reason: 'done' })).status).toBe(200);
    expect((await api('POST', `/reviews/${reviewId}/findings/${dismissed}/dismiss`, { reason: 'out of scope' })).status).toBe(200);

    const exported = await api('GET', `/reviews/${reviewId}/export.sarif`);
    expect(exported.status).toBe(200);
    // The export carries what the checks below are about: three results, two of them placed in files.
    expect(exported.body.runs[0].results).toHaveLength(3);
    expect(exported.body.runs[0].results.filter((result: any) => result.locations)).toHaveLength(2);

    const dir = await mkdtemp(join(tmpdir(), 'cc-sarif-validate-'));
    cleanup.push(dir);
    const file = join(dir, 'review.sarif');
    await writeFile(file, JSON.stringify(exported.body, null, 2));
    const { results, notifications } = await validate(file, dir);
    // SARIF's default level is warning: a validator result with no level counts as one.
    const problems = results.filter((result) => (result.level ?? 'warning') === 'error' || (result.level ?? 'warning') === 'warning');
    expect(problems.map((result) => `${result.ruleId}: ${JSON.stringify(result.message)}`)).toEqual([]);
    expect(notifications).toEqual([]);
  }, 60_000);

  it('positive control: the validator does report a rule whose name equals its id, and a tool without a version', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cc-sarif-validate-'));
    cleanup.push(dir);
    const file = join(dir, 'flawed.sarif');
    const flawed = { version: '2.1.0', $schema: 'https://json.schemastore.org/sarif-2.1.0.json', runs: [{ tool: { driver: { name: 'flawed', informationUri: 'https://example.invalid/', rules: [{ id: 'bug', name: 'bug' }] } }, results: [] }] };
    await writeFile(file, JSON.stringify(flawed, null, 2));
    const { results } = await validate(file, dir);
    expect(results.map((result) => result.ruleId)).toEqual(expect.arrayContaining(['SARIF1001', 'SARIF2005']));
  }, 60_000);
});
