import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { WORKSPACE_DB_FILE } from '../../src/store/workspace-database.js';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

let fixture: HarnessFixture;
afterEach(async () => {
  await fixture?.dispose();
});

/** What the server reported through its injected log. */
let logged: Array<{ message: string; error: string }>;

async function start(): Promise<void> {
  logged = [];
  fixture = await startHarnessFixture({
    server: {
      // The server's one logger, writing its JSON lines here: each error entry carries its message and error.
      logger: pino(
        { level: 'error' },
        {
          write: (line: string) => {
            const entry = JSON.parse(line) as { msg: string; err?: { message?: string } };
            logged.push({ message: entry.msg, error: entry.err?.message ?? String(entry.err) });
          },
        },
      ),
    },
  });
}

/**
 * Makes one kind of run-log write fail for real: a trigger in the workspace's SQLite file (through a
 * second connection, as another process could) raises on it, so the server's statement fails.
 */
function failWrites(triggerSql: string): void {
  const raw = new Database(join(fixture.workspaceDir, WORKSPACE_DB_FILE));
  try {
    raw.exec(triggerSql);
  } finally {
    raw.close();
  }
}

const failEvent = (type: string) =>
  `CREATE TRIGGER lose_${type} BEFORE INSERT ON run_events WHEN NEW.type = '${type}' BEGIN SELECT RAISE(ABORT, 'simulated write failure'); END;`;

/** One `list` call, then an answer. */
function scriptOneToolTurn(): void {
  fixture.model.script(reply().text('Looking.').tool('list', {}), reply().text('Nothing to see.'));
}

/** The run log of `scriptOneToolTurn`, in order. */
const ONE_TOOL_TURN = [
  'run_start',
  'model_call_start',
  'usage',
  'assistant_message',
  'tool_call_start',
  'tool_call_end',
  'model_call_start',
  'usage',
  'assistant_message',
  // What filled the context window at the end of the turn, for /context.
  'context_usage',
  'run_end',
];

describe('run-log writes (HAR-6)', () => {
  for (const type of ['run_start', 'tool_call_start', 'tool_call_end', 'assistant_message', 'run_end']) {
    it(`a lost '${type}' event is logged and the run ends failed with its log marked incomplete`, async () => {
      await start();
      failWrites(failEvent(type));
      scriptOneToolTurn();
      const runId = await fixture.send('Look around.');
      const detail = await fixture.waitForRun(runId);

      expect(detail.run.state).toBe('failed');
      expect(detail.run.liveness).toBe('failed');
      expect(detail.run.error).toMatch(/run log incomplete: \d+ write\(s\) could not be stored/);
      expect(detail.run.error).toContain(`event ${type}`);
      expect(detail.run.error).toContain('simulated write failure');
      // Only the failing write is lost: the rest of the batch it was in is stored, in order.
      const types: string[] = detail.events.map((event: { type: string }) => event.type);
      expect(types).not.toContain(type);
      expect(types).toEqual(ONE_TOOL_TURN.filter((kept) => kept !== type));
      const sequences: number[] = detail.events.map((event: { sequence: number }) => event.sequence);
      expect(sequences).toEqual([...sequences].sort((left, right) => left - right));
      expect(logged.some((entry) => entry.message.includes(runId) && entry.message.includes(`event ${type}`) && entry.error.includes('simulated write failure'))).toBe(true);
      // The operator's live view shows the failure too.
      await fixture.operator!.waitFor((event) => event.event === 'run.updated' && event.data.data.id === runId && event.data.data.state === 'failed');
    });
  }

  it('a lost tool-call row update is reported the same way; the tool call keeps what was stored', async () => {
    await start();
    failWrites(`CREATE TRIGGER lose_output BEFORE UPDATE OF output ON tool_calls BEGIN SELECT RAISE(ABORT, 'simulated write failure'); END;`);
    scriptOneToolTurn();
    const runId = await fixture.send('Look around.');
    const detail = await fixture.waitForRun(runId);
    expect(detail.run.state).toBe('failed');
    expect(detail.run.error).toMatch(/run log incomplete: 1 write\(s\) could not be stored \(first: tool call \S+ ended: simulated write failure\)/);
    expect(detail.toolCalls).toHaveLength(1);
    expect(detail.toolCalls[0]).toMatchObject({ name: 'list', decision: 'allow', output: null, endedAt: null });
    expect(detail.events.map((event: { type: string }) => event.type)).toContain('tool_call_end');
    expect(logged.some((entry) => entry.message.includes(runId))).toBe(true);
  });

  it('a run whose writes all succeed completes with every event and tool call, nothing logged', async () => {
    await start();
    scriptOneToolTurn();
    const runId = await fixture.send('Look around.');
    const detail = await fixture.waitForRun(runId);
    expect(detail.run).toMatchObject({ state: 'completed', error: null });
    expect(detail.events.map((event: { type: string }) => event.type)).toEqual(ONE_TOOL_TURN);
    expect(detail.events.map((event: { sequence: number }) => event.sequence)).toEqual(ONE_TOOL_TURN.map((_, index) => index + 1));
    expect(detail.toolCalls).toMatchObject([{ name: 'list', decision: 'allow', executed: true, isError: false }]);
    expect(logged).toEqual([]);
  });

  it('the run log read while a run waits holds every event so far (queued rows are flushed before a read)', async () => {
    await start();
    const rule = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/policy/rules`, { scope: 'workspace', match: { kind: 'command', prefix: 'touch' }, decision: 'ask' });
    expect(rule.status).toBe(201);
    fixture.model.script(reply().tool('bash', { command: 'touch waited.txt' }), reply().text('Done.'));
    const runId = await fixture.send('Touch a file.');
    // The call waits on the operator's approval: its start and decision must already be readable.
    await fixture.operator!.waitFor((event) => event.event === 'approval.requested' && event.data.data.runId === runId);
    const during = (await fixture.server.api('GET', `/api/workspaces/${fixture.workspaceId}/runs/${runId}`)).body;
    expect(during.events.map((event: { type: string }) => event.type)).toEqual(['run_start', 'model_call_start', 'usage', 'assistant_message', 'tool_call_start']);
    expect(during.toolCalls).toMatchObject([{ name: 'bash', decision: 'ask', output: null }]);
    await fixture.server.running.app.executor.cancel(runId);
    await fixture.waitForRun(runId);
  });
});
