import type { DecidedBy } from './policy/policy-decision.js';
import type { ProxyPush } from './push-grants.js';

/** An action an external runner is about to take, as its hook reports it (ADP-3, POL-1). */
export type TransportAction =
  | {
      kind: 'command';
      command: string;
      toolName: string;
      /** Set by the push proxy only: the ref updates it received, which an approval's grant is matched against (POL-6). */
      push?: ProxyPush;
    }
  | { kind: 'fileWrite'; path: string; toolName: string };

/** The policy engine's and the operator's answer for one transport action (after any approval wait). */
export interface TransportGateResult {
  allow: boolean;
  decision: 'allow' | 'ask' | 'deny';
  reason: string;
  decidedBy: DecidedBy;
  classes: readonly string[];
}

/**
 * Asks `gate` and turns any failure into a deny (fail closed, POL-4): the hook route and the push
 * proxy never let an action through because the gate itself broke.
 */
export async function gateFailingClosed(gate: () => Promise<TransportGateResult>, classes: readonly string[]): Promise<TransportGateResult> {
  try {
    return await gate();
  } catch (error) {
    return {
      allow: false,
      decision: 'deny',
      reason: `the gate failed: ${error instanceof Error ? error.message : String(error)} (fail closed)`,
      decidedBy: { scope: 'default', ruleId: null },
      classes,
    };
  }
}
