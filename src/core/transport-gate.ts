import type { DecidedBy } from './policy/policy-decision.js';

/** An action an external runner is about to take, as its hook reports it (ADP-3, POL-1). */
export type TransportAction =
  | { kind: 'command'; command: string; toolName: string }
  | { kind: 'fileWrite'; path: string; toolName: string };

/** The policy engine's and the operator's answer for one transport action (after any approval wait). */
export interface TransportGateResult {
  allow: boolean;
  decision: 'allow' | 'ask' | 'deny';
  reason: string;
  decidedBy: DecidedBy;
  classes: readonly string[];
}
