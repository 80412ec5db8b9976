import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ControlCenter } from '../../../src/services/control-center.js';
import { makeDataRoot } from '../../support/test-server.js';

let app: ControlCenter | null = null;
let dataRoot: string | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
  if (dataRoot) await rm(dataRoot, { recursive: true, force: true });
});

/** A child process that opens the Control Center, starts a run and reports when its side-effect node is in flight. */
const CHILD = `
import { ControlCenter } from ${JSON.stringify(new URL('../../../src/services/control-center.ts', import.meta.url).pathname)};
const app = await ControlCenter.open({ dataRoot: process.argv[2], builtinSandbox: 'none' });
await app.recover();
const workspace = await app.workspaces.create('Crash');
const { runId } = await app.pipelineEngine.start({ workspaceId: workspace.id, definition: {
  name: 'crash', triggers: [],
  nodes: [
    { key: 'done-first', type: 'bashScript', script: 'echo once >> first.log', dependsOn: [], continueOnFail: false, idempotent: false },
    { key: 'in-flight', type: 'bashScript', script: 'echo started >> flight.log; sleep 20', dependsOn: ['done-first'], continueOnFail: false, idempotent: false },
  ] } });
for (;;) {
  const run = await app.pipelines.getRun(workspace.id, runId);
  if (run.nodes[1].state === 'running') { console.log(JSON.stringify({ workspaceId: workspace.id, runId })); break; }
  await new Promise((resolve) => setTimeout(resolve, 25));
}
setInterval(() => {}, 1000);
`;

describe('a crashed server (SIGKILL, no shutdown at all) resumes its pipeline runs (PIPE-1)', () => {
  it('the finished side effect is not re-run; the node in flight at the kill is failed, never started twice', async () => {
    dataRoot = await makeDataRoot();
    const script = join(dataRoot, 'child.mts');
    await writeFile(script, CHILD);
    const child = spawn(process.execPath, ['--import', 'tsx', script, dataRoot], { stdio: ['ignore', 'pipe', 'pipe'] });
    const ids = await new Promise<{ workspaceId: string; runId: string }>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const line = out.split('\n').find((candidate) => candidate.startsWith('{'));
        if (line) resolve(JSON.parse(line) as { workspaceId: string; runId: string });
      });
      child.on('exit', (code) => reject(new Error(`child exited ${code}`)));
    });
    const workspaceDir = join(dataRoot, 'workspaces', ids.workspaceId);
    const scratch = async (key: string, file: string) => readFile(join(workspaceDir, 'pipeline-scratch', ids.runId, key, file), 'utf8').catch(() => '');
    // The kill must land while the second node is in flight: wait for its first words, however slowly
    // a loaded machine starts the child, rather than for a fixed number of tries.
    const inFlightBy = Date.now() + 60_000;
    while ((await scratch('in-flight', 'flight.log')) === '') {
      if (Date.now() > inFlightBy) throw new Error('the in-flight node never started');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('close', resolve));

    app = await ControlCenter.open({ dataRoot, builtinSandbox: 'none' });
    await app.recover();
    let run = await app.pipelines.getRun(ids.workspaceId, ids.runId);
    const recoveredBy = Date.now() + 60_000;
    while (run.status === 'running' && Date.now() < recoveredBy) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      run = await app.pipelines.getRun(ids.workspaceId, ids.runId);
    }
    expect(run.status).toBe('failed');
    expect(run.nodes[0]).toMatchObject({ key: 'done-first', state: 'done', attempts: 1 });
    expect(run.nodes[1]).toMatchObject({ key: 'in-flight', state: 'failed', attempts: 1 });
    expect(run.nodes[1]!.error).toContain('at most once');
    expect(await scratch('done-first', 'first.log')).toBe('once\n');
    expect(await scratch('in-flight', 'flight.log')).toBe('started\n');
    // A tsx child started, killed and recovered from: minutes, not seconds, on a loaded machine.
  }, 120_000);
});
