import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeReviewRepo } from '../support/review-repo.js';
import { makeDataRoot } from '../support/test-server.js';

const run = promisify(execFile);
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];

let dataRoot: string;
let serverProcess: ChildProcess;
let url: string;

async function cli(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...CLI, '--data-dir', dataRoot, ...args]);
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failure = error as { stdout: string; stderr: string; code: number };
    return { stdout: failure.stdout, stderr: failure.stderr, code: failure.code };
  }
}

beforeAll(async () => {
  dataRoot = await makeDataRoot();
  serverProcess = spawn(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', dataRoot], { stdio: ['ignore', 'pipe', 'pipe'] });
  url = await new Promise<string>((resolve, reject) => {
    let output = '';
    serverProcess.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match && output.includes('curl')) resolve(match[1]!);
    });
    serverProcess.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}, 60_000);

afterAll(async () => {
  serverProcess.kill('SIGTERM');
  await new Promise((resolve) => serverProcess.once('exit', resolve));
  await rm(dataRoot, { recursive: true, force: true });
});

// Each test starts the CLI several times (about 3 s each with the tsx loader, far more on a busy
// machine), so the default 30 s per test is too little there; nothing here measures time.
describe('control-center CLI', { timeout: 120_000 }, () => {
  it('serve --port 0 picks a free port, prints it and how to use the token', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Number(new URL(url).port)).toBeGreaterThan(0);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('workspace list shows the Default workspace; agent list shows the five seeded agents', async () => {
    const workspaces = await cli('workspace', 'list');
    expect(workspaces.code).toBe(0);
    expect(JSON.parse(workspaces.stdout).map((workspace: any) => workspace.name)).toEqual(['Default']);
    let agents = await cli('agent', 'list');
    for (let attempt = 0; attempt < 50 && agents.stdout.trim().split('\n').length < 5; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      agents = await cli('agent', 'list');
    }
    expect(agents.stdout).toMatch(/ceo/);
    expect(agents.stdout.trim().split('\n')).toHaveLength(5);
  });

  it('agent create, set and show round-trip; errors name the field and exit non-zero', async () => {
    const created = await cli('agent', '--workspace', 'Default', 'create', 'name=scribe', 'title=Scribe', 'skills=docs,Docs,writing');
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ name: 'scribe', skills: ['docs', 'writing'] });
    const set = await cli('agent', 'set', 'scribe', 'silenceTimeoutMinutes=12', 'persona=Writes things down.');
    expect(set.code).toBe(0);
    const shown = JSON.parse((await cli('agent', 'show', 'scribe')).stdout);
    expect(shown).toMatchObject({ silenceTimeoutMinutes: 12, persona: 'Writes things down.' });
    const bad = await cli('agent', 'set', 'scribe', 'silenceTimeoutMinutes=500');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/silenceTimeoutMinutes/);
  });

  it('workspace create and delete (with the name as confirmation)', async () => {
    const created = await cli('workspace', 'create', 'Scratch');
    expect(created.code).toBe(0);
    const refused = await cli('workspace', 'delete', 'Scratch', '--confirm', 'scratch');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/confirmName/);
    const deleted = await cli('workspace', 'delete', 'Scratch', '--confirm', 'Scratch');
    expect(deleted.code).toBe(0);
    expect(JSON.parse((await cli('workspace', 'list')).stdout)).toHaveLength(1);
  });

  it('review open and show: a pull-request review space from the command line (REV-1); a hostile ref exits non-zero naming the field', async () => {
    const { repo } = await makeReviewRepo();
    try {
      const opened = await cli('review', '--workspace', 'Default', 'open', repo, 'main', 'feature', '--title', 'CLI review');
      expect(opened.code).toBe(0);
      const body = JSON.parse(opened.stdout);
      expect(body).toMatchObject({ created: true, review: { title: 'CLI review', base: 'main', head: 'feature' } });
      const shown = JSON.parse((await cli('review', '--workspace', 'Default', 'show', body.review.id)).stdout);
      expect(shown.review.hunkMap['src/math.js']).toEqual([[3, 3], [9, 11]]);
      // Nobody reviewed it yet: no evidence, so not ship (TRUTH-3).
      expect(shown.verdict.current).toMatchObject({ verdict: 'hold' });
      expect(shown.verdict.current.axes).toContainEqual(expect.objectContaining({ axis: 'security', status: 'notAssessed' }));
      // After `--` the CLI passes it on as the head ref; the server refuses it.
      const bad = await cli('review', '--workspace', 'Default', 'open', '--', repo, 'main', '--output=/tmp/x');
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toMatch(/head/);
    } finally {
      await rm(repo, { recursive: true, force: true });
    }
  });
});
