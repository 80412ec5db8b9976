import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlCenter } from '../../../src/services/control-center.js';
import { makeDataRoot } from '../../support/test-server.js';

/**
 * POL-7: on a shared store every gate's timeout is also queued (a pg-boss write) after the
 * approval is created and announced. A decision arriving while that write is still under way must
 * reach the waiting gate: before, the gate registered its waiter only after the write, so such a
 * decision found nobody and the gate sat until its timeout (seen as a PostgreSQL run stuck "blocked").
 * The write is held on purpose here, on SQLite, through the same scheduler seam.
 */
let app: ControlCenter;
let dataRoot: string;
let workspaceId: string;

beforeAll(async () => {
  dataRoot = await makeDataRoot();
  app = await ControlCenter.open({ dataRoot, builtinSandbox: 'none' });
  workspaceId = (await app.workspaces.create('Gates')).id;
}, 60_000);

afterAll(async () => {
  await app?.close();
  await rm(dataRoot, { recursive: true, force: true });
});

describe('a gate waiting for approval (POL-7)', () => {
  it('gets a decision made while its timeout is still being queued', async () => {
    // The timeout write is held until the test lets it go, so the decision lands inside it for
    // certain (a fixed delay would race the machine's load either way).
    let entered = false;
    let queued = false;
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    app.approvals.scheduleTimeoutsWith(async () => {
      entered = true;
      await held;
      queued = true;
    });
    const waiting = app.approvals.requestAndWait(
      workspaceId,
      { kind: 'command', durable: false, title: 'touch x', request: { command: 'touch x' } },
      { timeoutMs: 10_000, signal: new AbortController().signal },
    );
    let pending: string | undefined;
    for (let tries = 0; tries < 2000 && !(pending && entered); tries += 1) {
      pending = (await app.approvals.list(workspaceId, { status: 'pending' }))[0]?.id;
      if (!(pending && entered)) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(pending).toBeDefined();
    expect(entered).toBe(true);
    await app.approvals.decide(workspaceId, pending!, { decision: 'approve' }, { kind: 'operator', operatorId: 'op_test' }, { kind: 'person', id: 'op_test', name: 'Tester' });
    expect(queued).toBe(false);
    release();
    const outcome = await waiting;
    expect(outcome.status).toBe('approved');
    expect(queued).toBe(true);
  }, 30_000);
});
