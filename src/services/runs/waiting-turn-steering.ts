import { ConflictError, NotFoundError } from '../../errors/index.js';
import type { Approval } from '../../schemas/approval.js';
import type { Run } from '../../schemas/run.js';

/**
 * A second message sent while a turn of the conversation waits for an operator's approval belongs to
 * that turn: started as a turn of its own it would run beside the waiting one, and its answer would
 * land above the answer still to come. So the message is handed to the waiting turn as steering
 * (HAR-5), which reads it once the approval is decided, before its next model call.
 */
export interface WaitingTurnSteering {
  /** The run the text went to, or null when no turn of the conversation waits or it cannot be steered. */
  steerWaitingTurn(workspaceId: string, conversationId: string, text: string): Promise<Run | null>;
}

export interface WaitingTurnSteeringDeps {
  pendingApprovals(workspaceId: string, conversationId: string): Promise<Approval[]>;
  findRun(workspaceId: string, runId: string): Promise<Run | null>;
  /** HAR-5 steering, wherever the run executes; refuses (409/404) a run that reads no more steering. */
  steer(workspaceId: string, runId: string, text: string): Promise<void>;
}

export function waitingTurnSteering(deps: WaitingTurnSteeringDeps): WaitingTurnSteering {
  return {
    async steerWaitingTurn(workspaceId, conversationId, text) {
      const approvals = await deps.pendingApprovals(workspaceId, conversationId);
      const runIds = [...new Set(approvals.flatMap((approval) => (approval.runId ? [approval.runId] : [])))];
      for (const runId of runIds) {
        const run = await deps.findRun(workspaceId, runId);
        if (!run || run.conversationId !== conversationId || (run.state !== 'running' && run.state !== 'queued')) continue;
        try {
          await deps.steer(workspaceId, runId, text);
          return run;
        } catch (error) {
          // A transport that cannot be steered, or a turn already finishing: the message starts a turn of its own, as before.
          if (error instanceof ConflictError || error instanceof NotFoundError) continue;
          throw error;
        }
      }
      return null;
    },
  };
}
