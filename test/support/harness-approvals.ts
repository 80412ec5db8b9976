import { join } from 'node:path';
import type { HarnessFixture } from './harness-fixture.js';

/** The worktree of the fixture's conversation (made by its first run). */
export function conversationWorktree(fixture: HarnessFixture): string {
  return join(fixture.workspaceDir, 'worktrees', fixture.conversationId);
}

/** Calls `/api/workspaces/<id><path>` on the fixture's workspace as the operator. */
export function workspaceApi(fixture: HarnessFixture, method: string, path: string, body?: unknown) {
  return fixture.server.api(method, `/api/workspaces/${fixture.workspaceId}${path}`, body);
}

/** The next pending approval the operator's event stream announces that is not in `seen`. */
export async function nextPendingApproval(fixture: HarnessFixture, seen: ReadonlySet<string>): Promise<any> {
  const event = await fixture.operator!.waitFor((candidate) => candidate.event === 'approval.requested' && candidate.data.data.status === 'pending' && !seen.has(candidate.data.data.id));
  return event.data.data;
}
