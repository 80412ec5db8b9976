/**
 * Cursor transport overhead: the wall time of a Control Center turn on the Cursor
 * transport (HTTP message → run executor → transport → fake SDK, four `run_command` calls through the
 * policy gate and the command sandbox) against the same four commands played by the fake SDK alone
 * (no server, no gate: the SDK's own shell), medians of 5. The transport figure includes the run
 * detail route's 25 ms polling. No idle-memory figure: the SDK runs in-process and the agent is closed
 * after each turn, so no session stays between turns (heap deltas here were GC noise).
 * Tested against the fake SDK only: Cursor's backend is not reachable here.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startCursorFixture } from '../test/adapters/cursor/cursor-fixture.js';
import { FakeCursorSdk, type FakeCursorStep } from '../test/support/fake-cursor-sdk.js';
import { median, type BenchFigure } from './figure.js';

const RUNS = 5;
const CALLS_PER_TURN = 4;
const run = promisify(execFile);

async function bareTurn(): Promise<number> {
  const sdk = new FakeCursorSdk();
  const steps: FakeCursorStep[] = Array.from({ length: CALLS_PER_TURN }, () => ({ cursorTool: 'shell', args: { command: 'true' }, effect: async () => void (await run('bash', ['-c', 'true'])) }));
  sdk.script([...steps, { text: 'Done.' }]);
  const started = performance.now();
  const agent = await sdk.create({ apiKey: 'bench', model: { id: 'auto' } });
  const sent = await agent.send('go');
  for await (const message of sent.stream()) void message;
  await sent.wait();
  return performance.now() - started;
}

export default async function relayCursorBench(): Promise<BenchFigure[]> {
  const bare: number[] = [];
  for (let index = 0; index < RUNS; index += 1) bare.push(await bareTurn());
  const f = await startCursorFixture({ autonomy: 'actFreely' });
  const transport: number[] = [];
  try {
    // A first turn makes the worktree and warms the route; it is not counted.
    f.sdk.script([{ text: 'Warm.' }]);
    await f.waitForRun(await f.send('warm up'));
    for (let index = 0; index < RUNS; index += 1) {
      f.sdk.script([...Array.from({ length: CALLS_PER_TURN }, () => ({ hostTool: 'run_command', args: { command: 'true' } })), { text: 'Done.' }]);
      const started = performance.now();
      const detail = await f.waitForRun(await f.send(`turn ${index}`));
      transport.push(performance.now() - started);
      if (detail.run.state !== 'completed') throw new Error(`bench turn ${index} ended ${detail.run.state}: ${detail.run.error}`);
    }
    return [
      { metric: 'bareFakeSdkTurnMs', value: median(bare), unit: 'ms' },
      { metric: 'transportTurnMs', value: median(transport), unit: 'ms' },
      { metric: 'overheadPerTurnMs', value: median(transport) - median(bare), unit: 'ms' },
    ];
  } finally {
    await f.dispose();
  }
}
