import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely, Selectable } from 'kysely';
import type { AutonomyLevel } from '../../core/modes.js';
import { agentAxes } from '../../core/review/axis-evidence.js';
import { foldVerdict, type AxisResult } from '../../core/review/fold-verdict.js';
import { anchorProblem } from '../../core/review/hunk-map.js';
import { reviewDelta } from '../../core/review/review-delta.js';
import { LIVE_FINDING_STATUSES, type FindingAnchor, type FindingPriority, type FindingType } from '../../core/review/review-types.js';
import { ConflictError, NotFoundError, ValidationError } from '../../errors/index.js';
import { ensureWorktree } from '../../git/git-worktrees.js';
import { computeReviewDiff } from '../../git/review-diff.js';
import { runGit, tryGit } from '../../git/run-git.js';
import { newId, nowIso } from '../../ids.js';
import type { CommandSandbox } from '../../sandbox/command-sandbox.js';
import type { Agent } from '../../schemas/agent.js';
import type { EventCause } from '../../schemas/events.js';
import type { AssessAxisBody, AxisAssessment, Finding, GateResult, OpenReviewBody, Review, VerdictView } from '../../schemas/review.js';
import { insertAxisAssessment, listAxisAssessments, toAxisAssessment } from '../../store/repositories/axis-assessment-repository.js';
import { findFindingRow, insertFinding, readFindings, toFinding, updateFindingRow } from '../../store/repositories/finding-repository.js';
import {
  findReviewRow,
  findReviewRowByRepoHead,
  findReviewRowBySpace,
  hunkMapOf,
  insertReview,
  listGateConfigs,
  listGateResults,
  listReviewRows,
  putGateResult,
  recordReviewRound,
  replaceGateConfigs,
  setReviewVerdict,
  toReview,
} from '../../store/repositories/review-repository.js';
import { deleteSpace, deleteSpaceAndConversation } from '../../store/repositories/space-repository.js';
import type { ReviewFindingTable, ReviewTable, WorkspaceSchema } from '../../store/workspace-schema.js';
import type { AgentService } from '../agents/agent-service.js';
import type { EventBus } from '../event-bus.js';
import type { RunExecutor } from '../runs/run-executor.js';
import type { SpaceService } from '../spaces/space-service.js';
import { databaseCheckoutRecords } from '../workspaces/checkout-service.js';
import { assertRepositoryPath } from '../workspaces/repository-path-check.js';
import type { SettingsService } from '../workspaces/settings-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { reviewerPrompt } from './reviewer-prompt.js';

/** Who acts on a finding: a run's agent (from the run, never an argument) or a person (REV-2). */
export interface ReviewPrincipal {
  kind: 'agent' | 'operator';
  id: string;
}

export interface NewFindingInput {
  type: FindingType;
  priority: FindingPriority;
  confidence: number;
  body: string;
  anchor?: FindingAnchor | null;
  axis?: string | null;
}

/** Default reviewers dispatched on a review (the seeded agents). */
export const DEFAULT_REVIEWERS: readonly string[] = ['qa', 'architect', 'engineer'];

/** The agents' own axes, always shown in the verdict (REV-4). */
const AGENT_AXES: readonly string[] = ['correctness', 'security', 'tests'];

/** Gate output kept per gate (the tail: that is where test runners print the failures). */
const GATE_OUTPUT_MAX = 16 * 1024;

const samePrincipal = (left: ReviewPrincipal, right: ReviewPrincipal) => left.kind === right.kind && left.id === right.id;

/** What the author of a finding says; the rest of its row is the same for every new finding. */
type FindingStatement = Pick<ReviewFindingTable, 'type' | 'priority' | 'confidence' | 'body' | 'anchor_path' | 'anchor_start' | 'anchor_end' | 'axis'>;

/** A new finding's row: open, new in the review's current round, confirmed by nobody yet (typed as narrowly as `statement`). */
function openFindingRow<Statement extends FindingStatement>(reviewId: string, round: number, author: ReviewPrincipal, runId: string | null, statement: Statement): ReviewFindingTable & Statement {
  const now = nowIso();
  return {
    id: newId('fnd'),
    review_id: reviewId,
    round,
    ...statement,
    status: 'open',
    carry: 'new',
    author_kind: author.kind,
    author_id: author.id,
    run_id: runId,
    confirmed_by: '[]',
    status_reason: null,
    status_by: null,
    resolved_round: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Pull-request reviews (REV-1..5, MODE-6): opening one as a `pullRequest` space in review mode with the
 * head checked out, the findings' lifecycle, gated axes run in the sandbox, dispatching reviewers,
 * and the verdict that folds it all and only gets stricter.
 */
export class ReviewService {
  private readonly opening = new Map<string, Promise<unknown>>();
  private readonly queues = new Map<string, { running: number; waiting: Array<() => void> }>();

  constructor(
    private readonly deps: {
      workspaces: WorkspaceService;
      spaces: SpaceService;
      agents: AgentService;
      settings: SettingsService;
      events: EventBus;
      executor: () => RunExecutor;
      /** Where gate commands run: the OS sandbox (a gate with no sandbox backend is `notRun`). */
      sandbox: CommandSandbox;
    },
  ) {}

  private async db(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.deps.workspaces.handle(workspaceId)).database.db;
  }

  private async row(workspaceId: string, reviewId: string): Promise<Selectable<ReviewTable>> {
    const row = await findReviewRow(await this.db(workspaceId), reviewId);
    if (!row) throw new NotFoundError('review', reviewId, 'reviewId');
    return row;
  }

  async list(workspaceId: string): Promise<Review[]> {
    return (await listReviewRows(await this.db(workspaceId))).map((row) => toReview(workspaceId, row));
  }

  async get(workspaceId: string, reviewId: string): Promise<Review> {
    return toReview(workspaceId, await this.row(workspaceId, reviewId));
  }

  async diff(workspaceId: string, reviewId: string): Promise<string> {
    return (await this.row(workspaceId, reviewId)).diff;
  }

  /** The review a space was opened for (the review tools find it through the run's space). */
  async forSpace(workspaceId: string, spaceId: string): Promise<Review | null> {
    const row = await findReviewRowBySpace(await this.db(workspaceId), spaceId);
    return row ? toReview(workspaceId, row) : null;
  }

  /**
   * Opens a review of `base...head` in `repoPath` (MODE-6): a `pullRequest` space in review mode, its
   * conversation, the head checked out for the reviewers, and the three SHAs, the diff, the hunk map
   * and REVIEW.md recorded. Idempotent per repository + head: the same head commit returns the same
   * review (`created: false`); a moved head starts the next round in place (a re-review) and carries
   * the earlier findings forward.
   */
  async open(workspaceId: string, body: OpenReviewBody): Promise<{ review: Review; created: boolean; reReview: boolean }> {
    await assertRepositoryPath(body.repoPath);
    const key = `${workspaceId}\0${body.repoPath}\0${body.head}`;
    const previous = this.opening.get(key) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.openSerialized(workspaceId, body));
    this.opening.set(key, next);
    try {
      return await next;
    } finally {
      if (this.opening.get(key) === next) this.opening.delete(key);
    }
  }

  private async openSerialized(workspaceId: string, body: OpenReviewBody): Promise<{ review: Review; created: boolean; reReview: boolean }> {
    const db = await this.db(workspaceId);
    const change = await computeReviewDiff(body.repoPath, body.base, body.head);
    const existing = await findReviewRowByRepoHead(db, body.repoPath, body.head);
    const now = nowIso();
    if (existing && existing.head_sha === change.headSha && existing.base_sha === change.baseSha) {
      return { review: toReview(workspaceId, existing), created: false, reReview: false };
    }
    if (existing) {
      const round = existing.round + 1;
      // The new head is checked out first: a round is never recorded without its checkout.
      await this.checkout(workspaceId, existing.id, round, body.repoPath, change.headSha);
      // Carry forward (re-review): a live finding whose lines left the diff cannot be re-verified
      // there; it stays live (missing evidence never relaxes the verdict) and says so.
      await recordReviewRound(
        db,
        existing.id,
        {
          base_ref: body.base,
          base_sha: change.baseSha,
          head_sha: change.headSha,
          merge_base_sha: change.mergeBaseSha,
          round,
          hunk_map: JSON.stringify(change.hunkMap),
          diff: change.diff,
          review_md: change.reviewMd,
          updated_at: now,
        },
        (anchor) => (anchor && anchorProblem(anchor, change.hunkMap) ? 'notVerifiable' : 'stillOpen'),
      );
      const review = await this.get(workspaceId, existing.id);
      this.deps.events.publish(workspaceId, 'review.updated', review);
      return { review, created: false, reReview: true };
    }
    const title = body.title ?? `Review of ${body.head.slice(0, 180)}`;
    const reviewId = newId('rev');
    // Checked out before anything is recorded: a review never exists without its head checkout.
    await this.checkout(workspaceId, reviewId, 1, body.repoPath, change.headSha);
    const space = await this.deps.spaces.create(workspaceId, { name: title, kind: 'pullRequest', repoPath: body.repoPath });
    const conversation = await this.deps.spaces.createConversation(workspaceId, space.id, { title }).catch(async (error: unknown) => {
      await deleteSpace(db, space.id);
      throw error;
    });
    const row: ReviewTable = {
      id: reviewId,
      space_id: space.id,
      conversation_id: conversation.id,
      repo_path: body.repoPath,
      title,
      base_ref: body.base,
      head_ref: body.head,
      base_sha: change.baseSha,
      head_sha: change.headSha,
      merge_base_sha: change.mergeBaseSha,
      round: 1,
      hunk_map: JSON.stringify(change.hunkMap),
      diff: change.diff,
      review_md: change.reviewMd,
      verdict_json: null,
      finalized_by: null,
      finalized_at: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await insertReview(db, row);
    } catch (error) {
      // Undo the space this call made, so a failed open leaves nothing behind.
      await deleteSpaceAndConversation(db, space.id, conversation.id);
      throw error;
    }
    const review = toReview(workspaceId, row);
    this.deps.events.publish(workspaceId, 'review.opened', review);
    return { review, created: true, reReview: false };
  }

  /** The checkout key of a review round: each round's head gets its own checkout. */
  checkoutKey(reviewId: string, round: number): string {
    return `${reviewId}-r${round}`;
  }

  /** Checks the head out for the reviewers (SEC-3 records it); review mode mounts it read-only (CAP-5). */
  private async checkout(workspaceId: string, reviewId: string, round: number, repoPath: string, headSha: string): Promise<void> {
    const handle = await this.deps.workspaces.handle(workspaceId);
    await ensureWorktree({
      repoPath,
      worktreesDir: join(handle.dir, 'worktrees'),
      conversationId: this.checkoutKey(reviewId, round),
      baseRef: headSha,
      records: databaseCheckoutRecords(handle.database.db),
    });
  }

  async findings(workspaceId: string, reviewId: string): Promise<{ findings: Finding[]; dropped: number }> {
    await this.row(workspaceId, reviewId);
    return readFindings(await this.db(workspaceId), reviewId);
  }

  /**
   * Records a finding (REV-2). The author is the caller's principal — for an agent, the calling run's
   * agent. The anchor is checked against the hunk map now, so a bad one is an error to the author.
   */
  async addFinding(workspaceId: string, reviewId: string, author: ReviewPrincipal, runId: string | null, input: NewFindingInput): Promise<Finding> {
    const review = await this.row(workspaceId, reviewId);
    if (!Number.isFinite(input.confidence) || input.confidence < 0 || input.confidence > 1) throw new ValidationError('confidence', 'confidence must be between 0 and 1');
    if (input.body.trim() === '') throw new ValidationError('body', 'body must not be empty');
    if (input.anchor) {
      const problem = anchorProblem(input.anchor, hunkMapOf(review));
      if (problem) throw new ValidationError('anchor', `anchor refused: ${problem}`);
    }
    const row = openFindingRow(reviewId, review.round, author, runId, {
      type: input.type,
      priority: input.priority,
      confidence: input.confidence,
      body: input.body,
      anchor_path: input.anchor?.path ?? null,
      anchor_start: input.anchor?.startLine ?? null,
      anchor_end: input.anchor?.endLine ?? null,
      axis: input.axis ?? null,
    });
    await insertFinding(await this.db(workspaceId), row);
    const finding = toFinding(row);
    this.deps.events.publish(workspaceId, 'review.finding', finding);
    return finding;
  }

  /**
   * Keeps a finding that failed the REV-3 boundary (no priority or confidence, or either out of
   * range) as a row the read boundary drops and counts, so the drop is visible in the verdict's
   * `dropped` count instead of vanishing. Never part of the verdict.
   */
  async recordDropped(workspaceId: string, reviewId: string, author: ReviewPrincipal, runId: string | null, raw: { type: string; priority: unknown; confidence: unknown; body: string }): Promise<void> {
    const review = await this.row(workspaceId, reviewId);
    await insertFinding(
      await this.db(workspaceId),
      openFindingRow(reviewId, review.round, author, runId, {
        type: raw.type,
        priority: typeof raw.priority === 'string' ? raw.priority.slice(0, 20) : null,
        confidence: typeof raw.confidence === 'number' && Number.isFinite(raw.confidence) ? raw.confidence : null,
        body: raw.body.slice(0, 20_000),
        anchor_path: null,
        anchor_start: null,
        anchor_end: null,
        axis: null,
      }),
    );
  }

  private async findingOf(workspaceId: string, findingId: string, reviewId?: string): Promise<Finding> {
    const row = await findFindingRow(await this.db(workspaceId), findingId);
    if (!row || (reviewId !== undefined && row.review_id !== reviewId)) throw new NotFoundError('finding', findingId, 'findingId');
    if (row.priority === null || row.confidence === null) throw new NotFoundError('finding', findingId, 'findingId');
    return toFinding(row as typeof row & { priority: string; confidence: number });
  }

  private async change(workspaceId: string, finding: Finding, set: Parameters<typeof updateFindingRow>[2]): Promise<Finding> {
    await updateFindingRow(await this.db(workspaceId), finding.id, { ...set, updated_at: nowIso() });
    const updated = await this.findingOf(workspaceId, finding.id);
    this.deps.events.publish(workspaceId, 'review.finding', updated);
    return updated;
  }

  /** A peer — never the author — confirms a finding: `open` → `consensusReady` (REV-2). */
  async confirm(workspaceId: string, findingId: string, by: ReviewPrincipal, reviewId?: string): Promise<Finding> {
    const finding = await this.findingOf(workspaceId, findingId, reviewId);
    if (samePrincipal(finding.author, by)) throw new ConflictError('findingId', `finding ${findingId} cannot be confirmed by its own author; a peer must confirm it`);
    if (finding.status === 'dismissed' || finding.status === 'resolved') throw new ConflictError('findingId', `finding ${findingId} is ${finding.status}; only a live finding can be confirmed`);
    const confirmedBy = finding.confirmedBy.some((entry) => samePrincipal(entry, by)) ? finding.confirmedBy : [...finding.confirmedBy, by];
    return this.change(workspaceId, finding, { status: 'consensusReady', confirmed_by: JSON.stringify(confirmedBy) });
  }

  async dismiss(workspaceId: string, findingId: string, by: ReviewPrincipal, reason: string, reviewId?: string): Promise<Finding> {
    return this.markLive(workspaceId, { findingId, reviewId, by, reason }, 'dismissed', { noReason: 'a dismissal needs a reason', notLive: (status) => `is already ${status}` });
  }

  /** A person disputes a finding; it stays in the verdict (a disagreement is not evidence the problem is gone). */
  async contest(workspaceId: string, findingId: string, by: ReviewPrincipal, reason: string, reviewId?: string): Promise<Finding> {
    return this.markLive(workspaceId, { findingId, reviewId, by, reason }, 'contested', { noReason: 'contesting a finding needs a reason', notLive: (status) => `is ${status}; only a live finding can be contested` });
  }

  /**
   * Moves a live finding to `status` with the reason and who gave it (dismiss, contest): the one
   * load → check reason → check live → change path, with each verb's own words for the refusals.
   */
  private async markLive(
    workspaceId: string,
    action: { findingId: string; reviewId: string | undefined; by: ReviewPrincipal; reason: string },
    status: 'dismissed' | 'contested',
    words: { noReason: string; notLive: (status: string) => string },
  ): Promise<Finding> {
    const finding = await this.findingOf(workspaceId, action.findingId, action.reviewId);
    if (action.reason.trim() === '') throw new ValidationError('reason', words.noReason);
    if (finding.status === 'dismissed' || finding.status === 'resolved') throw new ConflictError('findingId', `finding ${action.findingId} ${words.notLive(finding.status)}`);
    return this.change(workspaceId, finding, { status, status_reason: action.reason, status_by: `${action.by.kind}:${action.by.id}` });
  }

  async resolve(workspaceId: string, findingId: string, by: ReviewPrincipal, reason: string | undefined, reviewId?: string): Promise<Finding> {
    const finding = await this.findingOf(workspaceId, findingId, reviewId);
    if (finding.status === 'resolved') throw new ConflictError('findingId', `finding ${findingId} is already resolved`);
    if (finding.status === 'dismissed') throw new ConflictError('findingId', `finding ${findingId} was dismissed`);
    const review = await this.row(workspaceId, finding.reviewId);
    return this.change(workspaceId, finding, { status: 'resolved', status_reason: reason ?? null, status_by: `${by.kind}:${by.id}`, resolved_round: review.round });
  }

  /**
   * Records an explicit assessment of one axis of the review's current head (TRUTH-3): the evidence
   * an agent axis needs to pass. `name` is what the verdict shows as the assessor (the agent's name).
   */
  async assessAxis(workspaceId: string, reviewId: string, assessor: ReviewPrincipal & { name: string }, runId: string | null, input: AssessAxisBody): Promise<AxisAssessment> {
    const review = await this.row(workspaceId, reviewId);
    const row = {
      id: newId('asm'),
      review_id: reviewId,
      head_sha: review.head_sha,
      axis: input.axis,
      assessment: input.assessment,
      basis: input.basis.trim(),
      assessor_kind: assessor.kind,
      assessor_id: assessor.id,
      assessor_name: assessor.name,
      run_id: runId,
      created_at: nowIso(),
    };
    await insertAxisAssessment(await this.db(workspaceId), row);
    this.deps.events.publish(workspaceId, 'review.updated', toReview(workspaceId, review));
    return toAxisAssessment(row);
  }

  /** The assessments of the review's current head (older heads' are kept but are not evidence now). */
  async assessments(workspaceId: string, reviewId: string): Promise<AxisAssessment[]> {
    const review = await this.row(workspaceId, reviewId);
    return listAxisAssessments(await this.db(workspaceId), reviewId, review.head_sha);
  }

  async gates(workspaceId: string, repoPath: string): Promise<Array<{ name: string; command: string }>> {
    return listGateConfigs(await this.db(workspaceId), repoPath);
  }

  /** Configures a repository's gated axes (tests, lint, type-check…), replacing the previous list. */
  async setGates(workspaceId: string, repoPath: string, gates: ReadonlyArray<{ name: string; command: string }>): Promise<Array<{ name: string; command: string }>> {
    await assertRepositoryPath(repoPath);
    const names = new Set<string>();
    for (const [index, gate] of gates.entries()) {
      if (names.has(gate.name)) throw new ValidationError(`gates.${index}.name`, `gate ${JSON.stringify(gate.name)} is listed twice`);
      names.add(gate.name);
    }
    await replaceGateConfigs(await this.db(workspaceId), repoPath, gates, nowIso());
    return this.gates(workspaceId, repoPath);
  }

  async gateResults(workspaceId: string, reviewId: string): Promise<GateResult[]> {
    const review = await this.row(workspaceId, reviewId);
    return listGateResults(await this.db(workspaceId), reviewId, review.head_sha);
  }

  /**
   * Runs the repository's gate commands against a disposable copy of head (REV-4): a fresh clone
   * sharing the repository's objects, checked out detached at the head SHA, each command run by
   * `sh -c` inside the OS sandbox (the copy writable, the data directory hidden, no network). The
   * review's own checkout is never touched. Exit 0 passes; any other exit fails; no sandbox, a
   * signal or an error starting it is `notRun` — evidence that is missing, never a pass.
   */
  async runGates(workspaceId: string, reviewId: string): Promise<GateResult[]> {
    const review = await this.row(workspaceId, reviewId);
    const handle = await this.deps.workspaces.handle(workspaceId);
    const configs = await this.gates(workspaceId, review.repo_path);
    const { backend, detail } = await this.deps.sandbox.backend();
    for (const [position, gate] of configs.entries()) {
      const ranAt = nowIso();
      const base = { name: gate.name, command: gate.command, headSha: review.head_sha, ranAt };
      // Progress for whoever watches (the review page): this gate started, then how it ended.
      const progress = { reviewId, name: gate.name, command: gate.command, headSha: review.head_sha, index: position + 1, total: configs.length };
      this.deps.events.publish(workspaceId, 'review.gate', { ...progress, status: 'running', exitCode: null });
      let result: GateResult;
      if (!backend) {
        result = { ...base, status: 'notRun', exitCode: null, output: `no OS sandbox on this host (${detail}); the server does not run the change's code unsandboxed` };
      } else {
        const directory = join(handle.dir, 'worktrees', `gate-${reviewId}-${gate.name}-${newId('g')}`);
        try {
          const objects = await tryGit(['rev-parse', '--path-format=absolute', '--git-common-dir', '--git-path', 'objects'], { cwd: review.repo_path });
          const [gitDir, objectsDir] = objects?.stdout.split('\n').map((line) => line.trim()) ?? [];
          if (!gitDir || !objectsDir) throw new Error(`${review.repo_path} is no longer a git repository`);
          await runGit(['clone', '--quiet', '--shared', '--no-checkout', '--template=', '--', gitDir, directory], { cwd: handle.dir });
          // The SHA is the server's own record (40 or 64 hex digits), never a caller's string.
          if (!/^[0-9a-f]{40,64}$/.test(review.head_sha)) throw new Error('the recorded head is not a commit id');
          await runGit(['checkout', '--quiet', '--detach', review.head_sha], { cwd: directory });
          const runner = this.deps.sandbox.checkoutRunner({ worktreePath: directory, sharedObjectsDir: objectsDir, workspaceDir: handle.dir });
          // SEC-10: the gate runs the change's code, which may print without end; only its last words are kept
          // (one byte over the cap, so a cut stream always shows the cut).
          const ran = await runner(['sh', '-c', gate.command], {}, { maxBytes: GATE_OUTPUT_MAX + 1, keepTail: true });
          const output = `${ran.stdout.toString('utf8')}${ran.stderr}`;
          const tail = output.length > GATE_OUTPUT_MAX ? `[…]${output.slice(-GATE_OUTPUT_MAX)}` : output;
          result =
            ran.exitCode === null
              ? { ...base, status: 'notRun', exitCode: null, output: `killed before it finished\n${tail}` }
              : { ...base, status: ran.exitCode === 0 ? 'pass' : 'fail', exitCode: ran.exitCode, output: tail };
        } catch (error) {
          result = { ...base, status: 'notRun', exitCode: null, output: `could not run: ${error instanceof Error ? error.message : String(error)}` };
        } finally {
          await rm(directory, { recursive: true, force: true }).catch(() => undefined);
        }
      }
      await putGateResult(handle.database.db, reviewId, result);
      this.deps.events.publish(workspaceId, 'review.gate', { ...progress, status: result.status, exitCode: result.exitCode });
    }
    return this.gateResults(workspaceId, reviewId);
  }

  /**
   * The verdict as it stands now (REV-4), folded from the live findings read through the REV-3
   * boundary, the agents' axes and the gated axes. A configured gate with no result for this head is
   * `notRun`: missing evidence never turns a gate green.
   */
  async verdict(workspaceId: string, reviewId: string, extra: { headline?: string | null; note?: string | null } = {}): Promise<VerdictView> {
    const review = await this.row(workspaceId, reviewId);
    const db = await this.db(workspaceId);
    const { findings, dropped } = await readFindings(db, reviewId);
    const settings = await this.deps.settings.get(workspaceId);
    const gateResults = await listGateResults(db, reviewId, review.head_sha);
    const results = new Map(gateResults.map((result) => [result.name, result]));
    // TRUTH-3: an agent axis passes only with evidence about this head (an explicit assessment, or a
    // gate of the same name that passed on it); silence leaves it not assessed.
    const axes: AxisResult[] = agentAxes({
      axes: AGENT_AXES,
      headSha: review.head_sha,
      findings,
      assessments: await listAxisAssessments(db, reviewId, review.head_sha),
      gates: gateResults,
    });
    for (const gate of await listGateConfigs(db, review.repo_path)) {
      const result = results.get(gate.name);
      axes.push(
        result
          ? { axis: gate.name, kind: 'gated', status: result.status, detail: result.status === 'fail' ? `exit ${result.exitCode}` : result.status === 'notRun' ? result.output.split('\n')[0]! : 'exit 0' }
          : { axis: gate.name, kind: 'gated', status: 'notRun', detail: 'not run for this head yet' },
      );
    }
    const folded = foldVerdict({ findings, axes, threshold: settings.reviewBlockThreshold });
    return {
      ...folded,
      axes,
      threshold: settings.reviewBlockThreshold,
      dropped,
      headline: extra.headline ?? null,
      note: extra.note ?? null,
      headSha: review.head_sha,
      round: review.round,
      delta: reviewDelta(findings, review.round),
    };
  }

  /**
   * Publishes the verdict (REV-5: optional, and may be called again; the latest publication wins).
   * Gates not yet run for this head are run first, so a published verdict has its gate evidence.
   */
  async finalize(workspaceId: string, reviewId: string, by: ReviewPrincipal, input: { headline?: string; note?: string } = {}, cause?: EventCause): Promise<Review> {
    const review = await this.row(workspaceId, reviewId);
    const db = await this.db(workspaceId);
    const done = new Set((await listGateResults(db, reviewId, review.head_sha)).map((result) => result.name));
    const configured = await listGateConfigs(db, review.repo_path);
    if (configured.some((gate) => !done.has(gate.name))) await this.runGates(workspaceId, reviewId);
    const verdict = await this.verdict(workspaceId, reviewId, { headline: input.headline ?? null, note: input.note ?? null });
    const now = nowIso();
    await setReviewVerdict(db, reviewId, verdict, `${by.kind}:${by.id}`, now);
    const published = await this.get(workspaceId, reviewId);
    this.deps.events.publish(workspaceId, 'review.finalized', published, cause);
    return published;
  }

  /**
   * Dispatches reviewers on a review, in parallel up to the workspace's `reviewConcurrency` (the rest
   * start as earlier ones end). Each runs in the review space's conversation, in review mode, on the
   * round's read-only checkout of head, with the SHAs, diff, hunk map, REVIEW.md and (on a re-review)
   * the earlier findings to re-verify in its prompt.
   */
  async dispatch(workspaceId: string, reviewId: string, reviewers: readonly string[] = DEFAULT_REVIEWERS): Promise<Array<{ agent: string; runId: string | null; queued: boolean }>> {
    const review = await this.get(workspaceId, reviewId);
    const agents: Agent[] = [];
    for (const [index, name] of reviewers.entries()) {
      const agent = await this.deps.agents.findByName(workspaceId, name);
      if (!agent) throw new ValidationError(`reviewers.${index}`, `there is no agent named ${JSON.stringify(name)} in this workspace`);
      if (!agents.some((known) => known.id === agent.id)) agents.push(agent);
    }
    const settings = await this.deps.settings.get(workspaceId);
    const space = await this.deps.spaces.get(workspaceId, review.spaceId);
    const { findings } = await this.findings(workspaceId, reviewId);
    const earlier = findings.filter((finding) => finding.round < review.round && LIVE_FINDING_STATUSES.has(finding.status));
    const diff = await this.diff(workspaceId, reviewId);
    const queue = this.queues.get(reviewId) ?? { running: 0, waiting: [] };
    this.queues.set(reviewId, queue);
    const started: Array<{ agent: string; runId: string | null; queued: boolean }> = [];
    for (const agent of agents) {
      const start = async () => {
        queue.running += 1;
        const release = () => {
          queue.running -= 1;
          queue.waiting.shift()?.();
        };
        const { run, finished } = await this.deps
          .executor()
          .start({
          workspaceId,
          agent,
          spaceId: review.spaceId,
          conversationId: review.conversationId,
          mode: 'review',
          autonomy: space.autonomy as AutonomyLevel,
          prompt: reviewerPrompt({ review, diff, earlier, reviewer: agent.name }),
          repoPath: review.repoPath,
          checkoutKey: this.checkoutKey(review.id, review.round),
          })
          .catch((error: unknown) => {
            release();
            throw error;
          });
        void finished.catch(() => undefined).finally(release);
        return run.id;
      };
      if (queue.running < settings.reviewConcurrency) {
        started.push({ agent: agent.name, runId: await start(), queued: false });
      } else {
        queue.waiting.push(() => void start().catch(() => undefined));
        started.push({ agent: agent.name, runId: null, queued: true });
      }
    }
    return started;
  }
}
