import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { PerKeyLock } from '../../core/per-key-lock.js';
import { branchNameProblem } from '../../core/review/forge-pull-request.js';
import { ConflictError, ForbiddenError, ValidationError } from '../../errors/index.js';
import { forgeRepositoryOf } from '../../git/forge-read-access.js';
import { inspectPushRemotes } from '../../git/git-push-proxy.js';
import { tryGit } from '../../git/run-git.js';
import { nowIso } from '../../ids.js';
import type { Approval } from '../../schemas/approval.js';
import type { ConversationDestinations, ConversationPublication, EditPublicationBody, PublishBody, PublishDraft } from '../../schemas/publish.js';
import type { WorkspaceSettings } from '../../schemas/settings.js';
import { setApprovalRequest } from '../../store/repositories/approval-repository.js';
import { findConversationPublication, findPublicationRow, insertPublication, listMerges, movePublication } from '../../store/repositories/conversation-publication-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { ApprovalService } from '../approvals/approval-service.js';
import type { PolicyService } from '../approvals/policy-service.js';
import type { OperatorPrincipal } from '../operator-auth.js';
import type { SpaceService } from '../spaces/space-service.js';
import type { CheckoutService } from '../workspaces/checkout-service.js';
import type { SettingsService } from '../workspaces/settings-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { pushBranchToForge } from './branch-push.js';
import { conversationBranch, type ConversationBranch } from './conversation-branch.js';
import { conversationFacts } from './conversation-facts.js';
import { GitHubPullRequests } from './github-pull-requests.js';
import { pullRequestBody, pullRequestTitle } from './pull-request-text.js';

/** The approval kind a publish asks under: one approval for the push (gitPush) and the pull request (prPublish). Durable (POL-7). */
export const CONVERSATION_PUBLISH_APPROVAL = 'conversationPublish';

/** Longer than a push may take (git's own bound, `GIT_TIMEOUT_MS`, plus the API calls): a publish "being sent" this long was interrupted. */
const INTERRUPTED_AFTER_MS = 15 * 60_000;

/** The forge repository a conversation publishes to: a remote of the user's repository on the configured forge. */
interface ForgeTarget {
  remoteName: string;
  remoteUrl: string;
  owner: string;
  repo: string;
}

/**
 * Publishing a conversation's branch as a pull request (CHG-2): one operator action, decided by the
 * `gitPush` rules (as the command line `git push <remote> cc/<conversation>`) and the `prPublish`
 * rules together — a deny of either refuses it (403), an ask of either makes ONE approval covering
 * both, and only an approved (or allowed) publish pushes and opens or updates the pull request. The
 * title and body are written from the conversation and may be edited until the approval is decided;
 * re-publishing updates the same pull request.
 */
export class PublishService {
  /** One publish of a conversation at a time (a double click, an approval decided twice). */
  private readonly lock = new PerKeyLock();

  constructor(
    private readonly deps: {
      workspaces: WorkspaceService;
      spaces: SpaceService;
      checkouts: CheckoutService;
      settings: SettingsService;
      approvals: ApprovalService;
      policy: PolicyService;
    },
  ) {
    deps.approvals.onDecided((workspaceId, approval) => this.onDecided(workspaceId, approval));
  }

  private async db(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.deps.workspaces.handle(workspaceId)).database.db;
  }

  /** Where the conversation's work went: its pull request and its local merges. */
  async destinations(workspaceId: string, conversationId: string): Promise<ConversationDestinations> {
    await this.deps.spaces.getConversation(workspaceId, conversationId);
    const db = await this.db(workspaceId);
    return { publication: await findConversationPublication(db, conversationId), merges: await listMerges(db, conversationId) };
  }

  /** The forge repository and the written title and body, before anything is sent (the panel shows them to edit). */
  async draft(workspaceId: string, conversationId: string, base?: string): Promise<PublishDraft> {
    return this.draftOf(workspaceId, await conversationBranch(this.deps.spaces, this.deps.checkouts, workspaceId, conversationId), base);
  }

  private async draftOf(workspaceId: string, branch: ConversationBranch, base: string | undefined): Promise<PublishDraft> {
    const conversationId = branch.conversation.id;
    const target = await this.forgeTarget(branch, await this.deps.settings.get(workspaceId));
    const baseBranch = await this.baseBranch(branch, base);
    const db = await this.db(workspaceId);
    const facts = await conversationFacts(db, {
      conversationId,
      conversationTitle: branch.conversation.title,
      repoPath: branch.record.repoPath,
      baseSha: branch.record.baseSha,
      headSha: branch.sha,
      headBranch: branch.branch,
    });
    return { provider: 'github', owner: target.owner, repo: target.repo, remoteName: target.remoteName, headBranch: branch.branch, baseBranch, title: pullRequestTitle(facts), body: pullRequestBody(facts) };
  }

  /**
   * Asks to publish (CHG-2). The policy decides first (nothing recorded on a deny); an ask records the
   * publication as awaiting approval with the approval's id, an allow sends it now.
   */
  async publish(workspaceId: string, conversationId: string, body: PublishBody, by: OperatorPrincipal): Promise<ConversationPublication> {
    return this.lock.exclusive(`${workspaceId}\0${conversationId}`, () => this.publishNow(workspaceId, conversationId, body, by));
  }

  private async publishNow(workspaceId: string, conversationId: string, body: PublishBody, by: OperatorPrincipal): Promise<ConversationPublication> {
    const db = await this.db(workspaceId);
    await this.settleInterrupted(workspaceId, conversationId);
    const existing = await findPublicationRow(db, conversationId);
    if (existing && (existing.status === 'awaitingApproval' || existing.status === 'publishing')) {
      throw new ConflictError('conversationId', `a publish of this conversation is already ${existing.status === 'publishing' ? 'being sent' : `waiting for approval ${existing.approval_id ?? ''}`.trim()}; decide or edit that one`);
    }
    const branch = await conversationBranch(this.deps.spaces, this.deps.checkouts, workspaceId, conversationId);
    const draft = await this.draftOf(workspaceId, branch, body.base);
    const title = body.title ?? draft.title;
    const text = body.body ?? draft.body;
    const where = `${draft.owner}/${draft.repo}`;
    const summary = `push ${draft.headBranch} to ${draft.remoteName} (${where}) and ${existing?.number ? `update pull request #${existing.number}` : `open a pull request into ${draft.baseBranch}`}`;
    const context = { spaceId: branch.space.id, mode: 'chat' as const, autonomy: 'actWithApproval' as const };
    // The push is decided as the command it is, so command-prefix rules (`git push origin → deny`) apply; the pull request by its class.
    const push = await this.deps.policy.probe(workspaceId, { ...context, command: `git push ${draft.remoteName} ${draft.headBranch}` });
    const pullRequest = await this.deps.policy.probe(workspaceId, { ...context, action: { classes: ['prPublish'], summary, tier: 'execute', toolName: 'forge.publishPullRequest' } });
    for (const [verdict, field] of [
      [push, 'gitPush'],
      [pullRequest, 'prPublish'],
    ] as const) {
      if (verdict.decision === 'deny') throw new ForbiddenError(`publishing to ${where} is denied by policy (${field}): ${verdict.explanation}`, field);
    }
    const now = nowIso();
    const row = {
      provider: draft.provider,
      owner: draft.owner,
      repo: draft.repo,
      remote_name: draft.remoteName,
      head_branch: draft.headBranch,
      base_branch: draft.baseBranch,
      title,
      body: text,
      status: 'awaitingApproval',
      approval_id: null,
      error: null,
      requested_by: `operator:${by.operatorId}`,
      // The commit the approval is for: the push is refused if the branch moved to anything else.
      head_sha: branch.sha,
    };
    if (existing) {
      // A pull request on another repository is not "the same" one: it starts again there.
      const sameRepository = existing.owner === draft.owner && existing.repo === draft.repo;
      const moved = await movePublication(db, conversationId, ['published', 'rejected', 'failed'], { ...row, ...(sameRepository ? {} : { number: null, web_url: null, pr_state: null, pushed_sha: null }) }, now);
      if (!moved) throw new ConflictError('conversationId', 'a publish of this conversation started meanwhile; decide or edit that one');
    } else {
      await insertPublication(db, { ...row, conversation_id: conversationId, number: null, web_url: null, pr_state: null, pushed_sha: null, published_at: null, created_at: now, updated_at: now });
    }
    if (push.decision === 'ask' || pullRequest.decision === 'ask') {
      const approval = await this.deps.approvals.create(workspaceId, {
        kind: CONVERSATION_PUBLISH_APPROVAL,
        durable: true,
        spaceId: branch.space.id,
        conversationId,
        title: `Publish ${draft.headBranch} to ${where}`,
        request: { ...this.approvalRequest(draft, title, text, branch.sha, existing?.web_url ?? null), summary },
      });
      await movePublication(db, conversationId, ['awaitingApproval'], { approval_id: approval.id }, nowIso());
      return (await findConversationPublication(db, conversationId))!;
    }
    return this.send(workspaceId, conversationId);
  }

  /**
   * A publish a restart interrupted (POL-7: its approval is durable, the send was not): one whose
   * approval was decided while no process sent it is sent or closed now, and one stuck "being sent"
   * for longer than a push may take failed. Without this, the conversation could never publish again.
   */
  private async settleInterrupted(workspaceId: string, conversationId: string): Promise<void> {
    const db = await this.db(workspaceId);
    const row = await findPublicationRow(db, conversationId);
    if (row?.status === 'awaitingApproval' && row.approval_id) {
      const approval = await this.deps.approvals.get(workspaceId, row.approval_id);
      if (approval.status === 'approved') await this.send(workspaceId, conversationId);
      else if (approval.status !== 'pending') await movePublication(db, conversationId, ['awaitingApproval'], { status: 'rejected', error: approval.reason ?? `the approval was ${approval.status}` }, nowIso());
    } else if (row?.status === 'publishing' && Date.now() - Date.parse(row.updated_at) > INTERRUPTED_AFTER_MS) {
      await movePublication(db, conversationId, ['publishing'], { status: 'failed', error: 'the server stopped while this publish was being sent; publish again' }, nowIso());
    }
  }

  /**
   * Reads the pull request's state from the forge again (merged or closed there since), for the
   * conversation's panel; a publish not yet through has nothing to read.
   */
  async refresh(workspaceId: string, conversationId: string): Promise<ConversationPublication> {
    return this.lock.exclusive(`${workspaceId}\0${conversationId}`, async () => {
      await this.deps.spaces.getConversation(workspaceId, conversationId);
      await this.settleInterrupted(workspaceId, conversationId);
      const db = await this.db(workspaceId);
      const row = await findPublicationRow(db, conversationId);
      if (!row || row.number === null) throw new ConflictError('conversationId', 'this conversation has no pull request yet');
      const settings = await this.deps.settings.get(workspaceId);
      const pr = await this.pullRequests(settings).read(row.owner, row.repo, Number(row.number));
      await db
        .updateTable('conversation_publications')
        .set({ pr_state: pr.state, ...(pr.headSha ? { head_sha: pr.headSha } : {}), updated_at: nowIso() })
        .where('conversation_id', '=', conversationId)
        .where('number', '=', row.number)
        .execute();
      return (await findConversationPublication(db, conversationId))!;
    });
  }

  private pullRequests(settings: WorkspaceSettings): GitHubPullRequests {
    return new GitHubPullRequests({ apiBaseUrl: settings.githubApiBaseUrl, webBaseUrl: settings.githubWebBaseUrl, token: settings.forgeTokens.github });
  }

  /** What the approval card shows: the destination, the commit and the text that will be sent (SEC-2: display data only). */
  private approvalRequest(draft: PublishDraft, title: string, body: string, headSha: string, pullRequest: string | null): Record<string, unknown> {
    return {
      conversationPublish: true,
      repository: `${draft.owner}/${draft.repo}`,
      remote: draft.remoteName,
      head: draft.headBranch,
      base: draft.baseBranch,
      headSha,
      pullRequest,
      title,
      body,
      classes: ['gitPush', 'prPublish'],
    };
  }

  /** Edits the title or body of a publish still waiting for its approval; the approval then shows the edited text. */
  async edit(workspaceId: string, conversationId: string, edit: EditPublicationBody): Promise<ConversationPublication> {
    return this.lock.exclusive(`${workspaceId}\0${conversationId}`, async () => {
      await this.deps.spaces.getConversation(workspaceId, conversationId);
      const db = await this.db(workspaceId);
      const row = await findPublicationRow(db, conversationId);
      if (!row) throw new ConflictError('conversationId', 'this conversation has not been published; there is nothing to edit');
      if (row.status !== 'awaitingApproval') throw new ConflictError('conversationId', `the publish is ${row.status}: only a publish waiting for its approval can be edited`);
      const changes = { ...(edit.title !== undefined ? { title: edit.title } : {}), ...(edit.body !== undefined ? { body: edit.body } : {}) };
      if (!(await movePublication(db, conversationId, ['awaitingApproval'], changes, nowIso()))) throw new ConflictError('conversationId', 'the publish was decided meanwhile; it can no longer be edited');
      if (row.approval_id) {
        const approval = await this.deps.approvals.get(workspaceId, row.approval_id);
        await setApprovalRequest(db, row.approval_id, { ...approval.request, ...changes });
      }
      return (await findConversationPublication(db, conversationId))!;
    });
  }

  /** An operator decided a publish's approval: approved → sent; anything else → nothing is sent. */
  private async onDecided(workspaceId: string, approval: Approval): Promise<void> {
    if (approval.kind !== CONVERSATION_PUBLISH_APPROVAL || !approval.conversationId) return;
    const conversationId = approval.conversationId;
    const db = await this.db(workspaceId);
    const row = await findPublicationRow(db, conversationId);
    if (!row || row.approval_id !== approval.id) return;
    if (approval.status !== 'approved') {
      await movePublication(db, conversationId, ['awaitingApproval'], { status: 'rejected', error: approval.reason ?? `the approval was ${approval.status}` }, nowIso());
      return;
    }
    // Sent in the background: the decision answers at once; the publication says how it went.
    void this.lock.exclusive(`${workspaceId}\0${conversationId}`, () => this.send(workspaceId, conversationId)).catch(() => undefined);
  }

  /**
   * Sends a publish: claims it (awaitingApproval → publishing, so one sender wins), pushes the approved
   * commit, then updates the conversation's pull request — the stored one while it is open, else an
   * open one found on the branch (a publish that crashed after opening it), else a new one.
   */
  private async send(workspaceId: string, conversationId: string): Promise<ConversationPublication> {
    const db = await this.db(workspaceId);
    if (!(await movePublication(db, conversationId, ['awaitingApproval'], { status: 'publishing' }, nowIso()))) return (await findConversationPublication(db, conversationId))!;
    const row = (await findPublicationRow(db, conversationId))!;
    try {
      const settings = await this.deps.settings.get(workspaceId);
      const branch = await conversationBranch(this.deps.spaces, this.deps.checkouts, workspaceId, conversationId);
      const target = await this.forgeTarget(branch, settings, row.remote_name);
      if (target.owner !== row.owner || target.repo !== row.repo) throw new ConflictError('conversationId', `remote ${row.remote_name} now names ${target.owner}/${target.repo}, not ${row.owner}/${row.repo}; publish again`);
      const handle = await this.deps.workspaces.handle(workspaceId);
      await pushBranchToForge({
        repoPath: branch.record.repoPath,
        branch: row.head_branch,
        sha: row.head_sha!,
        remoteUrl: target.remoteUrl,
        token: settings.forgeTokens.github!,
        stagingPath: join(handle.dir, 'publish-staging', `${createHash('sha256').update(conversationId).digest('hex').slice(0, 24)}.git`),
        lastPushedSha: row.pushed_sha,
      });
      await movePublication(db, conversationId, ['publishing'], { pushed_sha: row.head_sha }, nowIso());
      const forge = this.pullRequests(settings);
      const stored = row.number === null ? null : await forge.read(row.owner, row.repo, Number(row.number));
      const open = stored?.state === 'open' ? stored : await forge.findOpen(row.owner, row.repo, row.head_branch);
      const pr = open
        ? await forge.update(row.owner, row.repo, open.number, { title: row.title, body: row.body })
        : await forge.create(row.owner, row.repo, { title: row.title, body: row.body, head: row.head_branch, base: row.base_branch });
      await movePublication(
        db,
        conversationId,
        ['publishing'],
        { status: 'published', number: pr.number, web_url: pr.webUrl, pr_state: pr.state, head_sha: pr.headSha ?? row.head_sha, error: null, published_at: nowIso() },
        nowIso(),
      );
    } catch (error) {
      await movePublication(db, conversationId, ['publishing'], { status: 'failed', error: (error instanceof Error ? error.message : String(error)).slice(0, 2000) }, nowIso());
    }
    return (await findConversationPublication(db, conversationId))!;
  }

  /**
   * The remote of the user's repository on the configured forge (SEC-2): its URL must be a
   * repository under the workspace's GitHub web base, the only place the token may go. `origin` is
   * preferred; `remoteName` pins the one a pending publish was approved for.
   */
  private async forgeTarget(branch: ConversationBranch, settings: WorkspaceSettings, remoteName?: string): Promise<ForgeTarget> {
    if (!settings.forgeTokens.github) throw new ValidationError('forgeTokens.github', 'no GitHub token is configured for this workspace: set forgeTokens.github in the workspace settings');
    const { remotes } = await inspectPushRemotes(branch.record.repoPath);
    const candidates = remotes
      .map((remote) => ({ remote, repository: forgeRepositoryOf(remote.forwardUrl, settings) }))
      .filter((candidate) => candidate.repository !== null && (remoteName === undefined || candidate.remote.name === remoteName))
      .sort((a, b) => Number(b.remote.name === 'origin') - Number(a.remote.name === 'origin'));
    const chosen = candidates[0];
    if (!chosen) throw new ConflictError('conversationId', `the repository ${branch.record.repoPath} has no ${remoteName ? `remote ${remoteName}` : 'remote'} on the configured forge (${settings.githubWebBaseUrl}); add one, for example origin`);
    return { remoteName: chosen.remote.name, remoteUrl: chosen.remote.forwardUrl, owner: chosen.repository!.owner, repo: chosen.repository!.repo };
  }

  /** The pull request's base: the operator's choice, else the branch checked out in the user's repository. */
  private async baseBranch(branch: ConversationBranch, base: string | undefined): Promise<string> {
    const chosen = base ?? (await tryGit(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: branch.record.repoPath }))?.stdout.trim();
    if (!chosen) throw new ValidationError('base', 'the repository has no branch checked out; name the base branch');
    const problem = branchNameProblem(chosen);
    if (problem) throw new ValidationError('base', `base ${JSON.stringify(chosen.slice(0, 100))} refused: ${problem}`);
    if (chosen === branch.branch) throw new ValidationError('base', `the base cannot be the conversation's own branch ${branch.branch}`);
    return chosen;
  }
}
