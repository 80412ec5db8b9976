import type { Mode } from './modes.js';
import type { TransportAction, TransportGateResult } from './transport-gate.js';

/** One decision a chokepoint of a Claude Code run made (hook or push proxy), for the run and for tests. */
export interface HookDecisionRecord {
  /** `hook`: the PreToolUse hook; `push`: the git push proxy. */
  source: 'hook' | 'push';
  /** Claude Code's `tool_use_id` (hook decisions only). */
  toolUseId: string | null;
  toolName: string;
  action: TransportAction;
  allow: boolean;
  result: TransportGateResult;
  at: string;
}

/** A real remote the run may push to, reached through the push proxy (POL-6). */
export interface PushRemote {
  /** URL-safe id used in the proxy path (`/api/git-push/<id>`). */
  id: string;
  /** Name in the worktree's git config (`origin`), for approval summaries and command-prefix rules. */
  name: string;
  /** The URL as the worktree's git config spells it (what `pushInsteadOf` matches). */
  url: string;
  /** Where the proxy forwards an approved push (a relative local path resolved against the worktree). */
  forwardUrl: string;
  /**
   * Set when the remote is a repository on a forge the workspace holds a token for (POL-6): the run
   * fetches it through the proxy, which reads the forge with that token; the runner never holds it.
   * Decided from the workspace settings when the run starts, never recorded with the checkout.
   */
  forgeRead?: 'github';
}

/** What the hook route and the push proxy need to know about a Claude Code run in progress. */
export interface HookSession {
  /** The run-scoped bearer token (`cca_…`) the hook script and git present. */
  token: string;
  workspaceId: string;
  runId: string;
  /** The mode the turn started with (MODE-2): read-only modes never get an `allow` override. */
  mode: Mode;
  worktreePath: string;
  /** The run context's gate: policy engine + operator approval wait, fail closed. */
  gate(action: TransportAction, signal: AbortSignal): Promise<TransportGateResult>;
  /** Aborted when the run ends: pending gate waits end with it. */
  signal: AbortSignal;
  pushRemotes: Map<string, PushRemote>;
  /** Directory where the push proxy keeps its staging repositories for this workspace. */
  pushStagingDir: string;
  decisions: HookDecisionRecord[];
  /**
   * Registered for the push proxy only (a built-in harness run, whose bash pushes through the proxy):
   * the hook route does not serve it.
   */
  pushOnly?: boolean;
}

/**
 * The in-memory registry from run token to the run's gate (ADP-3, POL-6). The Claude Code transport
 * (and the run executor, for a built-in run's push-only session) registers a session for exactly the
 * duration of a run; the hook route and the push proxy look the bearer token up here. Nothing is
 * persisted: a restart ends every run and every session with it. There is no module-level instance:
 * the composition root (`ControlCenter`) creates one and hands it to every user, so two servers in one
 * process never see each other's sessions.
 */
export class HookSessions {
  private readonly byToken = new Map<string, HookSession>();
  private readonly endedListeners = new Set<(session: HookSession) => void>();

  /** Registers a session; the returned function removes it (call it when the run ends). */
  register(session: HookSession): () => void {
    this.byToken.set(session.token, session);
    return () => {
      if (this.byToken.get(session.token) !== session) return;
      this.byToken.delete(session.token);
      for (const listener of this.endedListeners) listener(session);
    };
  }

  /** Called with each session as it ends (its decisions complete); returns the unsubscribe function. */
  onSessionEnded(listener: (session: HookSession) => void): () => void {
    this.endedListeners.add(listener);
    return () => this.endedListeners.delete(listener);
  }

  get(token: string): HookSession | null {
    return this.byToken.get(token) ?? null;
  }

  /** The session of a run, if one is in progress. */
  forRun(runId: string): HookSession | null {
    for (const session of this.byToken.values()) if (session.runId === runId) return session;
    return null;
  }

  get size(): number {
    return this.byToken.size;
  }
}
