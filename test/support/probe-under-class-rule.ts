import { expect } from 'vitest';
import type { EffectClass } from '../../src/core/index.js';
import type { ProbeServer } from './policy-probe-server.js';

/**
 * Over real HTTP: with a workspace rule denying `effectClass`, `/policy/probe` must answer deny by that
 * rule for every command in `denied` and allow `allowed`; the rule is removed afterwards.
 */
export async function expectDeniedUnderClassRule(server: ProbeServer, effectClass: EffectClass, denied: readonly string[], allowed: string): Promise<void> {
  const rule = await server.api('POST', '/policy/rules', { scope: 'workspace', match: { kind: 'class', effectClass }, decision: 'deny' });
  expect(rule.status).toBe(201);
  try {
    for (const command of denied) {
      expect((await server.api('POST', '/policy/probe', { command })).body, command).toMatchObject({ decision: 'deny', decidedBy: { ruleId: rule.body.id } });
    }
    expect((await server.api('POST', '/policy/probe', { command: allowed })).body, allowed).toMatchObject({ decision: 'allow' });
  } finally {
    await server.api('DELETE', `/policy/rules/${rule.body.id}`);
  }
}
