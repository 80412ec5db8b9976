import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WORKSPACE_DB_FILE, WorkspaceDatabase } from '../../src/store/workspace-database.js';
import { pollUntil } from '../support/wait-for.js';

let dir: string;
let database: WorkspaceDatabase;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cc-run-log-writer-'));
  database = await WorkspaceDatabase.open('ws_test', dir);
});
afterEach(async () => {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A second connection to the same file, as another process would have. */
function sideConnection(): Database.Database {
  return new Database(join(dir, WORKSPACE_DB_FILE));
}

function query<Row>(sql: string, ...parameters: unknown[]): Row[] {
  const side = sideConnection();
  try {
    return side.prepare(sql).all(...parameters) as Row[];
  } finally {
    side.close();
  }
}

const storedEvents = (runId: string) => query<{ sequence: number; type: string }>('SELECT sequence, type FROM run_events WHERE run_id = ? ORDER BY rowid', runId);

describe('RunLogWriter (HAR-6)', () => {
  it('writes nothing at once, then everything queued within the batch delay in one go, in order', async () => {
    const failures: string[] = [];
    const onError = (_error: unknown, what: string) => failures.push(what);
    database.runLog.appendEvent('run_a', 1, 'run_start', '{}', 'now', onError);
    database.runLog.toolCallStarted('run_a', 'c1', 'list', '{}', 'now', onError);
    database.runLog.toolCallDecided('run_a', 'c1', 'allow', '{"scope":"default","ruleId":null}', '[]', onError);
    database.runLog.toolCallEnded('run_a', 'c1', 'a.txt', false, true, 'later', onError);
    database.runLog.appendEvent('run_a', 2, 'tool_call_end', '{}', 'later', onError);
    expect(storedEvents('run_a')).toEqual([]);
    // A later event-loop turn's writes join the same batch: one transaction for a tool turn's events.
    await new Promise((resolve) => setImmediate(resolve));
    database.runLog.appendEvent('run_a', 3, 'usage', '{}', 'later', onError);
    expect(storedEvents('run_a')).toEqual([]);
    await pollUntil(async () => storedEvents('run_a'), (stored) => stored.length > 0, 5_000, 2);
    expect(storedEvents('run_a')).toEqual([
      { sequence: 1, type: 'run_start' },
      { sequence: 2, type: 'tool_call_end' },
      { sequence: 3, type: 'usage' },
    ]);
    const calls = query('SELECT decision, output, is_error, executed, ended_at FROM tool_calls WHERE id = ?', 'run_a:c1');
    expect(calls).toEqual([{ decision: 'allow', output: 'a.txt', is_error: 0, executed: 1, ended_at: 'later' }]);
    expect(failures).toEqual([]);
  });

  it('flush() writes the queue now, so a reader right after an event sees it', () => {
    database.runLog.appendEvent('run_b', 1, 'run_start', '{}', 'now', () => undefined);
    database.runLog.flush();
    expect(storedEvents('run_b')).toEqual([{ sequence: 1, type: 'run_start' }]);
    database.runLog.flush();
    expect(storedEvents('run_b')).toHaveLength(1);
  });

  it('a closed database reports every queued write instead of dropping it', async () => {
    const failures: string[] = [];
    database.runLog.appendEvent('run_c', 1, 'run_start', '{}', 'now', (_error, what) => failures.push(what));
    database.runLog.toolCallStarted('run_c', 'c9', 'bash', '{}', 'now', (_error, what) => failures.push(what));
    (database as unknown as { store: { sqlite: Database.Database } }).store.sqlite.close();
    database.runLog.flush();
    expect(failures).toEqual(['event run_start', 'tool call c9 started']);
  });

  it('property: whatever writes fail, exactly the others are stored, in order, and exactly the failures are reported', () => {
    const side = sideConnection();
    // A trigger plays the part of a disk that refuses some rows: every type starting with "bad" is refused.
    side.exec(`CREATE TRIGGER refuse_bad BEFORE INSERT ON run_events WHEN NEW.type LIKE 'bad%' BEGIN SELECT RAISE(ABORT, 'refused'); END;`);
    side.close();
    let round = 0;
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }), fc.array(fc.nat({ max: 29 }), { maxLength: 3 }), (bad, flushPoints) => {
        round += 1;
        const runId = `run_p${round}`;
        const reported: string[] = [];
        bad.forEach((isBad, index) => {
          if (flushPoints.includes(index)) database.runLog.flush();
          database.runLog.appendEvent(runId, index + 1, `${isBad ? 'bad' : 'good'}_${index}`, '{}', 'now', (error, what) => {
            expect(String(error)).toContain('refused');
            reported.push(what);
          });
        });
        database.runLog.flush();
        const expectedStored = bad.flatMap((isBad, index) => (isBad ? [] : [{ sequence: index + 1, type: `good_${index}` }]));
        expect(storedEvents(runId)).toEqual(expectedStored);
        expect(reported).toEqual(bad.flatMap((isBad, index) => (isBad ? [`event bad_${index}`] : [])));
      }),
      { numRuns: 40 },
    );
  });
});
