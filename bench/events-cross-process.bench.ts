/**
 * P50/p99 delay of live events from the process that executes a run to an SSE client
 * connected to another process on the same PostgreSQL database (two real `serve` child processes,
 * separate data roots). Per event: the SSE client's receipt time minus the event's `at`, stamped
 * by the executing process when it published it (same host, same clock) — so the figure spans the
 * commit, the NOTIFY, the other process's delivery and the SSE write. For comparison in the same run:
 * a client on the executing process itself (PostgreSQL), and the embedded SQLite server. Also the
 * other process's own event-lag gauges (`/metrics`: database clock at commit → delivery to its
 * subscribers, read from histogram buckets), the figure without the publisher's queue and the client.
 */
import { loadavg } from 'node:os';
import { percentile, type BenchFigure } from './figure.js';
import { reply, startScriptedModelServer } from '../test/support/scripted-model-server.js';
import { startServeProcess, type ServeProcess } from '../test/support/serve-process.js';
import { SseClient } from '../test/support/sse-client.js';
import { freshTestDatabase } from '../test/support/test-database.js';
import { pollUntil } from '../test/support/plan-server-fixtures.js';

const RUNS = 40;

/** A `control_center_event_lag_quantile_seconds` gauge of a process, in ms. */
async function lagQuantileMs(process: ServeProcess, quantile: string): Promise<number> {
  const response = await fetch(`${process.url}/metrics`, { headers: { authorization: `Bearer ${process.token}` } });
  const line = (await response.text()).split('\n').find((text) => text.startsWith(`control_center_event_lag_quantile_seconds{quantile="${quantile}"}`));
  return Number(line?.split(' ').at(-1)) * 1000;
}

async function workload(executing: ServeProcess, watchers: ServeProcess[], model: Awaited<ReturnType<typeof startScriptedModelServer>>): Promise<number[][]> {
  const workspace = await executing.api('POST', '/api/workspaces', { name: 'Bench' });
  const workspaceId = workspace.body.id as string;
  await pollUntil(() => executing.api('GET', `/api/workspaces/${workspaceId}`), (response) => response.body.seeding === 'done', 120_000);
  const space = await executing.api('POST', `/api/workspaces/${workspaceId}/spaces`, { name: 'Work' });
  const conversation = await executing.api('POST', `/api/workspaces/${workspaceId}/spaces/${space.body.id}/conversations`, { title: 'Main' });
  const streams = await Promise.all(
    watchers.map((watcher) => SseClient.open(`${watcher.url}/api/workspaces/${workspaceId}/events`, { authorization: `Bearer ${watcher.token}` })),
  );
  for (let index = 0; index < RUNS; index += 1) {
    model.script(reply().text(`reply ${index}`));
    const sent = await executing.api('POST', `/api/workspaces/${workspaceId}/conversations/${conversation.body.id}/messages`, { text: `turn ${index}` });
    const runId = sent.body.run.id as string;
    await streams[0]!.waitFor((event) => event.event === 'run.updated' && event.data.data.id === runId && event.data.data.state === 'completed', 30_000);
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
  const delays = streams.map((stream) => stream.events.map((event) => event.receivedAt - Date.parse(event.data.at)));
  for (const stream of streams) stream.close();
  return delays;
}

export default async function eventsCrossProcess(): Promise<BenchFigure[]> {
  const model = await startScriptedModelServer();
  const database = await freshTestDatabase();
  // The shared machine's load decides these figures as much as the code does: printed beside them.
  const figures: BenchFigure[] = [{ metric: 'load_average_1m_at_start', value: loadavg()[0]!, unit: '' }];
  const env = { ...model.providerEnv, CONTROL_CENTER_DATABASE_URL: database.url };
  const one = await startServeProcess(env, ['--no-default-workspace']);
  const two = await startServeProcess(env, ['--no-default-workspace']);
  try {
    const [other, same] = await workload(one, [two, one], model);
    figures.push(
      { metric: 'postgres_other_process_p50', value: percentile(other!, 50), unit: 'ms' },
      { metric: 'postgres_other_process_p99', value: percentile(other!, 99), unit: 'ms' },
      { metric: 'postgres_same_process_p50', value: percentile(same!, 50), unit: 'ms' },
      { metric: 'postgres_same_process_p99', value: percentile(same!, 99), unit: 'ms' },
      { metric: 'postgres_events', value: other!.length, unit: 'events' },
      { metric: 'postgres_other_process_commit_to_delivery_p50', value: await lagQuantileMs(two, '0.5'), unit: 'ms' },
      { metric: 'postgres_other_process_commit_to_delivery_p99', value: await lagQuantileMs(two, '0.99'), unit: 'ms' },
      { metric: 'load_average_1m_after_postgres', value: loadavg()[0]!, unit: '' },
    );
  } finally {
    await Promise.all([one.stop(), two.stop()]);
    await database.drop();
  }
  const embedded = await startServeProcess({ ...model.providerEnv, CONTROL_CENTER_DATABASE_URL: '' }, ['--no-default-workspace']);
  try {
    const [local] = await workload(embedded, [embedded], model);
    figures.push(
      { metric: 'sqlite_same_process_p50', value: percentile(local!, 50), unit: 'ms' },
      { metric: 'sqlite_same_process_p99', value: percentile(local!, 99), unit: 'ms' },
      { metric: 'load_average_1m_at_end', value: loadavg()[0]!, unit: '' },
    );
  } finally {
    await embedded.stop();
    await model.close();
  }
  return figures;
}
