import { randomBytes } from 'node:crypto';

/** What a run-scoped agent token stands for: one run of one agent in one workspace. */
export interface AgentPrincipal {
  kind: 'agent';
  workspaceId: string;
  runId: string;
  agentId: string;
}

/**
 * Run-scoped bearer tokens for agents that reach the Control Center from outside the process (an
 * external CLI calling `/mcp`, a hook script, the git push proxy). A token lives exactly as long as
 * its run; it is kept in memory only, so a restart revokes every one of them.
 */
export class RunTokens {
  private readonly byToken = new Map<string, AgentPrincipal>();
  private readonly byRun = new Map<string, string>();

  issue(principal: Omit<AgentPrincipal, 'kind'>): string {
    const token = `cca_${randomBytes(24).toString('base64url')}`;
    this.byToken.set(token, { kind: 'agent', ...principal });
    this.byRun.set(principal.runId, token);
    return token;
  }

  authenticate(token: string): AgentPrincipal | null {
    return this.byToken.get(token) ?? null;
  }

  revoke(runId: string): void {
    const token = this.byRun.get(runId);
    if (token) this.byToken.delete(token);
    this.byRun.delete(runId);
  }
}
