import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlCenter } from '../../../src/services/control-center.js';
import { makeDataRoot } from '../../support/test-server.js';

/**
 * POL-7: on a shared store every gate's timeout is also queued (a pg-boss write, slow under load).
 * It is queued before the approval is stored or announced: a process killed the moment its approval
 * is seen must leave the timeout behind. So while that write is under way nobody can see, let alone
 * decide, the approval; once it is announced, a decision must reach the waiting gate (before, a
 * gate that registered its waiter late left such a decision unheard and sat until its timeout).
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
  it('asks nobody while its timeout is being queued, then gets the decision made as soon as it is announced', async () => {
    // The timeout write is held until the test lets it go (a fixed delay would race the machine's load).
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
    await expect.poll(() => entered).toBe(true);
    // Held: the approval does not exist yet, so no person is asked a question whose timeout could be lost.
    expect(await app.approvals.list(workspaceId, { status: 'pending' })).toEqual([]);
    release();
    let pending: string | undefined;
    await expect.poll(async () => (pending = (await app.approvals.list(workspaceId, { status: 'pending' }))[0]?.id)).toBeDefined();
    expect(queued).toBe(true);
    // Decided the moment it is seen: the gate is already waiting for it.
    await app.approvals.decide(workspaceId, pending!, { decision: 'approve' }, { kind: 'operator', operatorId: 'op_test' }, { kind: 'person', id: 'op_test', name: 'Tester' });
    const outcome = await waiting;
    expect(outcome.status).toBe('approved');
  }, 30_000);
});
