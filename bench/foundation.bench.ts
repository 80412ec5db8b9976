/**
 * Server start-up and workspace creation (issue: foundation). Median of several runs, each on a
 * fresh data root: start = open registry + token + listen; create = POST /api/workspaces until 201;
 * seeded = until the five agents and their directories exist.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../src/server/start-server.js';
import { median, type BenchFigure } from './figure.js';

export default async function foundation(): Promise<BenchFigure[]> {
  const startMs: number[] = [];
  const restartMs: number[] = [];
  const createMs: number[] = [];
  const seededMs: number[] = [];
  for (let round = 0; round < 7; round += 1) {
    const dataRoot = await mkdtemp(join(tmpdir(), 'cc-bench-'));
    let began = performance.now();
    let running = await startServer({ dataRoot, port: 0, logLevel: 'silent' });
    startMs.push(performance.now() - began);
    const token = (await readFile(join(dataRoot, 'operator-token'), 'utf8')).trim();
    began = performance.now();
    const response = await fetch(`${running.url}/api/workspaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `Bench ${round}` }),
    });
    createMs.push(performance.now() - began);
    if (response.status !== 201) throw new Error(`create failed: ${response.status}`);
    await running.app.seeding.settle();
    seededMs.push(performance.now() - began);
    await running.close();
    began = performance.now();
    running = await startServer({ dataRoot, port: 0, logLevel: 'silent' });
    restartMs.push(performance.now() - began);
    await running.close();
    await rm(dataRoot, { recursive: true, force: true });
  }
  return [
    { metric: 'server_start_fresh_p50', value: median(startMs), unit: 'ms' },
    { metric: 'server_restart_with_workspace_p50', value: median(restartMs), unit: 'ms' },
    { metric: 'workspace_create_p50', value: median(createMs), unit: 'ms' },
    { metric: 'workspace_create_and_seed_p50', value: median(seededMs), unit: 'ms' },
  ];
}
