import { DomainError } from '../../errors/index.js';
import type { Approval } from '../../schemas/approval.js';
import type { Run } from '../../schemas/run.js';
import type { FollowUpTurns, HeldMessageInput } from './follow-up-turns.js';

/**
 * Where a plain message goes while a turn of the conversation is still going (HAR-5). Started as a
 * turn of its own it would run beside that turn, and its answer would land above the answer still to
 * come. So it goes to the going turn as steering — a turn waiting for an approval first (it reads the
 * text once the approval is decided), else the newest running one (it reads the text before its next
 * step). A turn whose runtime cannot be steered, or that is finishing and reads no more steering,
 * gets the message as the next turn instead, started once it has ended (see FollowUpTurns).
 */
export type RunningTurnRoute = { kind: 'steered'; run: Run } | { kind: 'after'; run: Run };

export interface RunningTurnSteering {
  /** Null when no turn of the conversation is going (or none the message may address): it starts a turn of its own. */
  route(workspaceId: string, conversationId: string, text: string, agentId: string | null): Promise<RunningTurnRoute | null>;
  /** For a message routed `after` a turn: stores it, to be posted again once that turn has ended. */
  holdUntilEnded(workspaceId: string, message: HeldMessageInput): Promise<void>;
}

export interface RunningTurnSteeringDeps {
  pendingApprovals(workspaceId: string, conversationId: string): Promise<Approval[]>;
  /** The conversation's turns (runs without a parent) still queued or running, newest first. */
  goingTurns(workspaceId: string, conversationId: string): Promise<Run[]>;
  /** HAR-5 steering, wherever the run executes; refuses (409/404) a run that reads no more steering. */
  steer(workspaceId: string, runId: string, text: string): Promise<void>;
  followUps: FollowUpTurns;
}

export function runningTurnSteering(deps: RunningTurnSteeringDeps): RunningTurnSteering {
  return {
    async route(workspaceId, conversationId, text, agentId) {
      const going = await deps.goingTurns(workspaceId, conversationId);
      if (going.length === 0) return null;
      const waitingIds = new Set((await deps.pendingApprovals(workspaceId, conversationId)).flatMap((approval) => (approval.runId ? [approval.runId] : [])));
      // A turn waiting for a decision first: the person is looking at its approval card.
      const candidates = [...going.filter((run) => waitingIds.has(run.id)), ...going.filter((run) => !waitingIds.has(run.id))]
        // A message addressed to another agent by id is that agent's own turn.
        .filter((run) => agentId === null || run.agentId === agentId);
      for (const run of candidates) {
        try {
          await deps.steer(workspaceId, run.id, text);
          return { kind: 'steered', run };
        } catch (error) {
          // A runtime that cannot be steered, a turn not started yet or one finishing: try the next turn.
          // By status, not class: a refusal relayed from the process executing the turn (a worker)
          // arrives as the same 409 or 404, rebuilt from its stored body.
          if (isRefusal(error)) continue;
          throw error;
        }
      }
      // None takes steering: the message waits for the newest going turn to end, then starts the next one.
      const newest = candidates[0];
      return newest ? { kind: 'after', run: newest } : null;
    },
    holdUntilEnded: (workspaceId, message) => deps.followUps.hold(workspaceId, message),
  };
}

/** A steering refusal (409: cannot be steered, or finishing; 404: not in progress), here or relayed from another process. */
function isRefusal(error: unknown): boolean {
  return error instanceof DomainError && (error.status === 409 || error.status === 404);
}
