import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelCallCostRow } from '../../src/store/run-log-sink.js';
import { WorkspaceDatabase } from '../../src/store/workspace-database.js';
import { statementsDuring } from '../support/postgres-statements-sent.js';
import { testDialect, testStoreLocation, workspaceStoreRows } from '../support/test-database.js';

/**
 * BUD-1, NF-SCALE: a model call's spend-ledger row is written by the workspace's run-log writer. On
 * PostgreSQL it joins the queued run-log lines in their one statement; on both stores the caller's
 * promise resolves once the row is committed (another connection reads it) and rejects with the
 * row's own failure, while the rows beside it in the batch are kept.
 */
let location: Awaited<ReturnType<typeof testStoreLocation>>;
let dir: string;
let store: WorkspaceDatabase;
const workspaceId = 'ws_cost_rows';

beforeAll(async () => {
  location = await testStoreLocation();
  dir = mkdtempSync(join(tmpdir(), 'cc-cost-rows-'));
  store = await WorkspaceDatabase.open(workspaceId, dir, location.location);
}, 60_000);

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
  await location?.cleanup();
});

function costRow(id: string, runId: string, costUsd: number): ModelCallCostRow {
  return {
    id,
    run_id: runId,
    agent_id: 'agt_1',
    provider: 'anthropic',
    model: 'claude-test',
    input_tokens: 1_000_010,
    output_tokens: 5,
    cache_read_tokens: 7,
    cache_write_tokens: 0,
    cost_usd: costUsd,
    priced: 1,
    created_at: '2026-12-07T06:00:00.000Z',
  };
}

/** The ledger rows of a run as another connection (another process) reads them. */
const ledger = (runId: string) =>
  workspaceStoreRows<{ id: string; input_tokens: number | string; cache_read_tokens: number | string; cost_usd: number }>(
    location.location,
    { id: workspaceId, dataDir: dir },
    `select id, input_tokens, cache_read_tokens, cost_usd from model_call_costs where run_id = '${runId}' order by id`,
  );

describe("a model call's spend row in the run log's writer", () => {
  it('is committed when its promise resolves; on PostgreSQL it is in the one statement of the lines queued beside it', async () => {
    const failures: string[] = [];
    const onError = (_error: unknown, what: string) => failures.push(what);
    const sent = await statementsDuring(async () => {
      store.runLog.appendEvent('run_cost', 1, 'usage', '{}', 'now', onError);
      const recorded = store.runLog.modelCallCost(costRow('mcc_a', 'run_cost', 0.1 + 0.2));
      store.runLog.appendEvent('run_cost', 2, 'assistant_message', '{}', 'now', onError);
      await recorded;
      // Nobody flushed: the promise waited for the batch, and the row is there for another connection.
      const rows = await ledger('run_cost');
      expect(rows.map((row) => [row.id, Number(row.input_tokens), Number(row.cache_read_tokens), row.cost_usd])).toEqual([['mcc_a', 1_000_010, 7, 0.1 + 0.2]]);
    });
    if (testDialect() === 'postgres') {
      const writes = sent.filter((text) => !text.startsWith('select'));
      expect(writes).toHaveLength(1);
      expect(writes[0]).toContain('insert into run_events');
      expect(writes[0]).toContain('insert into model_call_costs');
    }
    await store.runLog.flush();
    expect(failures).toEqual([]);
  });

  it("a row that cannot be written rejects its own promise only; the lines and the other row of its batch are stored", async () => {
    const failures: string[] = [];
    const onError = (_error: unknown, what: string) => failures.push(what);
    await store.runLog.modelCallCost(costRow('mcc_taken', 'run_other', 1));
    store.runLog.appendEvent('run_clash', 1, 'usage', '{}', 'now', onError);
    // Its id is taken: on PostgreSQL the batch's statement fails and each write is retried on its own.
    const clash = store.runLog.modelCallCost(costRow('mcc_taken', 'run_clash', 2));
    const fine = store.runLog.modelCallCost(costRow('mcc_fine', 'run_clash', 3));
    store.runLog.appendEvent('run_clash', 2, 'assistant_message', '{}', 'now', onError);
    await expect(clash).rejects.toThrow(/unique|duplicate|constraint/i);
    await expect(fine).resolves.toBeUndefined();
    await store.runLog.flush();
    expect((await ledger('run_clash')).map((row) => [row.id, row.cost_usd])).toEqual([['mcc_fine', 3]]);
    const lines = await store.db.selectFrom('run_events').select(['sequence', 'type']).where('run_id', '=', 'run_clash').orderBy('sequence').execute();
    expect(lines.map((line) => `${line.sequence} ${line.type}`)).toEqual(['1 usage', '2 assistant_message']);
    expect(failures).toEqual([]);
  });
});
