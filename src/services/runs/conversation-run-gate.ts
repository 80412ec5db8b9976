import { ConflictError } from '../../errors/index.js';
import type { ActiveRuns } from './active-runs.js';

/**
 * CTX-3: a rewind and a run never overlap in one conversation. A rewind's git steps are slow, and a
 * message sent meanwhile would start a run on a checkout being reset, so a rewind holds its
 * conversation from its check that no run is going until it is recorded; a run being launched holds
 * it from before its message is written until its row is recorded (from then on the rewind's check
 * of the database sees it, in this process or another). Each side is refused with 409 while the other
 * holds it. Both checks are synchronous, so nothing can start between a check and its hold.
 */
export class ConversationRunGate {
  private readonly rewinding = new Map<string, string>();
  private readonly launching = new Map<string, number>();

  constructor(private readonly active: ActiveRuns) {}

  /** Holds the conversation for rewind `rewindId`; refused while a run of it is active, starting or another rewind holds it. */
  holdForRewind(workspaceId: string, conversationId: string, rewindId: string): () => void {
    const key = `${workspaceId}/${conversationId}`;
    const running = this.active.inWorkspace(workspaceId).find((run) => run.conversationId === conversationId);
    if (running) throw new ConflictError('conversationId', `run ${running.runId} is active in this conversation; cancel it or wait for it to end before rewinding`);
    if (this.launching.has(key)) throw new ConflictError('conversationId', 'a run is starting in this conversation; wait for it to end before rewinding');
    const other = this.rewinding.get(key);
    if (other) throw new ConflictError('conversationId', `rewind ${other} of this conversation is in progress`);
    this.rewinding.set(key, rewindId);
    return () => this.rewinding.delete(key);
  }

  /** Holds the conversation while a run is launched in it; refused while it is being rewound. */
  holdForLaunch(workspaceId: string, conversationId: string): () => void {
    const key = `${workspaceId}/${conversationId}`;
    const rewind = this.rewinding.get(key);
    if (rewind) throw new ConflictError('conversationId', `the conversation is being rewound (rewind ${rewind}); send the message again once it is done`);
    this.launching.set(key, (this.launching.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.launching.get(key) ?? 1) - 1;
      if (left > 0) this.launching.set(key, left);
      else this.launching.delete(key);
    };
  }
}
