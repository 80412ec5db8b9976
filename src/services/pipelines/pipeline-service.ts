import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { cronMatches, parseCron } from '../../core/pipelines/cron.js';
import type { PipelineTrigger } from '../../core/pipelines/pipeline-definition.js';
import type { PipelineIssue } from '../../core/pipelines/pipeline-issue.js';
import { unknownAgentIssues } from '../../core/pipelines/unknown-agents.js';
import { pipelineFormatOf, validatePipelineDefinition, validatePipelineSource, type PipelineValidation } from '../../core/pipelines/validate-pipeline.js';
import { verifyWebhook } from '../../core/pipelines/webhook-signature.js';
import { ConflictError, NotFoundError, UnauthorizedError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { PipelineRunDetail, PipelineRunSummary, PipelineView } from '../../schemas/pipeline.js';
import {
  findFilePipelineId,
  findPipelineRow,
  findPipelineRunRow,
  findTriggers,
  forgetWebhookDeliveries,
  insertPipeline,
  listEventTriggers,
  listPipelineIds,
  listPipelineRunRows,
  listRecentPipelineRunRows,
  listScheduleTriggers,
  markTriggerFired,
  pipelineDefinitionOf,
  recordWebhookDelivery,
  replacePipeline,
  runDetail,
  runSummaries,
  toPipelineView,
} from '../../store/repositories/pipeline-repository.js';
import { listAgents } from '../../store/repositories/agent-repository.js';
import type { PipelineTriggerTable, WorkspaceSchema } from '../../store/workspace-schema.js';
import type { EventBus, WorkspaceEvent } from '../event-bus.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import type { PipelineEngine } from './pipeline-engine.js';

/** A definition the validator refused: every issue goes back, each with its node (PIPE-1). */
export class InvalidPipelineError extends ValidationError {
  constructor(readonly issues: PipelineIssue[]) {
    const first = issues[0]!;
    super(first.field || 'body', `${issues.length} error(s) in the pipeline definition; first: ${first.nodeKey ? `node ${first.nodeKey}: ` : ''}${first.message}`);
  }
}

/** The folder of a workspace whose `*.json` / `*.yaml` files are pipelines (PIPE-1 file authoring). */
export const PIPELINE_FILES_DIR = 'pipelines';

/**
 * Domain-event triggers (PIPE-1) and the bus events that fire them: a plan approved, a review's verdict
 * published, a ticket moved to done (by a person or the API). An event an agent's tool call caused
 * (`update_ticket`, `finalize_review`) fires none of them: a pipeline run carries no rules of the run
 * that caused it, so an agent could otherwise start work under rules weaker than its own (SEC-9).
 */
const EVENT_TRIGGERS: Record<'plan.approved' | 'review.finalized' | 'ticket.done', (event: WorkspaceEvent) => boolean> = {
  'plan.approved': (event) => event.type === 'plan.approved',
  'review.finalized': (event) => event.type === 'review.finalized',
  'ticket.done': (event) => event.type === 'ticket.updated' && event.data.status === 'done',
};

/**
 * Pipelines (PIPE-1): definitions from the API or from workspace files, their triggers (manual,
 * schedule, HMAC-signed webhook, domain events) and their runs on the {@link PipelineEngine}.
 */
export class PipelineService {
  private scheduleTimer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly engine: PipelineEngine,
    private readonly events: EventBus,
    private readonly logger?: Logger,
  ) {}

  /**
   * The one validation every save runs, and the validate route answers with: the pure validator plus
   * what only the workspace knows (the agents its nodes name). Stores nothing.
   */
  async check(workspaceId: string, body: unknown): Promise<PipelineValidation> {
    const validation = validatePipelineDefinition(body);
    const missing = unknownAgentIssues(body, await this.knownAgentIds(await this.db(workspaceId)));
    if (missing.length === 0) return validation;
    return { definition: null, errors: [...validation.errors, ...missing], warnings: validation.warnings };
  }

  /** Validates and stores a pipeline; the webhook secret (if any) is returned this once only. */
  async create(workspaceId: string, body: unknown, source: { kind: string; path?: string } = { kind: 'api' }): Promise<{ pipeline: PipelineView; webhookSecret: string | null }> {
    const validation = await this.check(workspaceId, body);
    if (!validation.definition) throw new InvalidPipelineError(validation.errors);
    const db = await this.db(workspaceId);
    const id = newId('pl');
    const now = nowIso();
    const { rows, secret } = this.triggerRows(id, validation.definition.triggers);
    await insertPipeline(db, { id, name: validation.definition.name, definition: JSON.stringify(validation.definition), warnings: JSON.stringify(validation.warnings), source: JSON.stringify(source), created_at: now, updated_at: now }, rows);
    return { pipeline: await this.get(workspaceId, id), webhookSecret: secret };
  }

  /**
   * Replaces an API-authored pipeline's definition and triggers after the same validation as create;
   * a kept webhook trigger keeps its secret, a new one gets a secret returned this once. A pipeline
   * from a workspace file is edited in its file: the next file sync would overwrite an API edit.
   */
  async update(workspaceId: string, pipelineId: string, body: unknown): Promise<{ pipeline: PipelineView; webhookSecret: string | null }> {
    const db = await this.db(workspaceId);
    const row = await findPipelineRow(db, pipelineId);
    if (!row) throw new NotFoundError('pipeline', pipelineId, 'pipelineId');
    const source = JSON.parse(row.source) as { kind: string; path?: string };
    if (source.kind !== 'api') throw new ConflictError('pipelineId', source.kind === 'file' ? `this pipeline comes from the workspace file ${source.path ?? ''}: edit that file instead` : 'only pipelines created here or through the API can be edited');
    const validation = await this.check(workspaceId, body);
    if (!validation.definition) throw new InvalidPipelineError(validation.errors);
    const hadWebhook = (await findTriggers(db, pipelineId)).some((trigger) => trigger.type === 'webhook');
    const { rows, secret } = this.triggerRows(pipelineId, validation.definition.triggers);
    await replacePipeline(db, pipelineId, { name: validation.definition.name, definition: JSON.stringify(validation.definition), warnings: JSON.stringify(validation.warnings), updated_at: nowIso() }, rows);
    return { pipeline: await this.get(workspaceId, pipelineId), webhookSecret: hadWebhook ? null : secret };
  }

  async list(workspaceId: string): Promise<PipelineView[]> {
    const db = await this.db(workspaceId);
    const ids = await listPipelineIds(db);
    return Promise.all(ids.map((id) => this.get(workspaceId, id)));
  }

  async get(workspaceId: string, pipelineId: string): Promise<PipelineView> {
    const db = await this.db(workspaceId);
    const row = await findPipelineRow(db, pipelineId);
    if (!row) throw new NotFoundError('pipeline', pipelineId, 'pipelineId');
    const runs = await listPipelineRunRows(db, pipelineId, 5);
    return toPipelineView(row, await findTriggers(db, pipelineId), await runSummaries(db, runs));
  }

  /** Starts a run of a stored pipeline (manual, schedule, webhook or event trigger). */
  async startRun(workspaceId: string, pipelineId: string, trigger: { type: string; payload?: unknown }, idempotencyKey?: string): Promise<PipelineRunDetail> {
    const db = await this.db(workspaceId);
    const row = await findPipelineRow(db, pipelineId);
    if (!row) throw new NotFoundError('pipeline', pipelineId, 'pipelineId');
    const definition = pipelineDefinitionOf(row);
    const { runId } = await this.engine.start({ workspaceId, definition, pipelineId, trigger, source: { kind: 'pipeline', id: pipelineId }, idempotencyKey: idempotencyKey ? `${pipelineId}:${idempotencyKey}` : null });
    return this.getRun(workspaceId, runId);
  }

  async listRuns(workspaceId: string, pipelineId: string): Promise<PipelineRunSummary[]> {
    const db = await this.db(workspaceId);
    if (!(await findPipelineRow(db, pipelineId))) throw new NotFoundError('pipeline', pipelineId, 'pipelineId');
    const runs = await listPipelineRunRows(db, pipelineId, 100);
    return runSummaries(db, runs);
  }

  /** Recent runs of every source — orchestrations' runs have no stored pipeline (UI: pipelines list). */
  async listRecentRuns(workspaceId: string, limit: number): Promise<PipelineRunSummary[]> {
    const db = await this.db(workspaceId);
    return runSummaries(db, await listRecentPipelineRunRows(db, limit));
  }

  async getRun(workspaceId: string, runId: string): Promise<PipelineRunDetail> {
    const db = await this.db(workspaceId);
    const run = await findPipelineRunRow(db, runId);
    if (!run) throw new NotFoundError('pipeline run', runId, 'runId');
    return runDetail(db, run);
  }

  async cancelRun(workspaceId: string, runId: string): Promise<PipelineRunDetail> {
    await this.engine.cancelRun(workspaceId, runId);
    return this.getRun(workspaceId, runId);
  }

  async cancelNode(workspaceId: string, runId: string, key: string): Promise<PipelineRunDetail> {
    await this.engine.cancelNode(workspaceId, runId, key);
    return this.getRun(workspaceId, runId);
  }

  /**
   * A webhook delivery (PIPE-1): the HMAC signature is the authentication. Every refusal — unknown
   * pipeline, no webhook trigger, missing, stale or wrong signature — is the same 401, so the route
   * reveals nothing to a caller without the secret; a replayed signature is refused too.
   */
  async deliverWebhook(pipelineId: string, headers: { signature: string | undefined; timestamp: string | undefined }, rawBody: string): Promise<{ runId: string }> {
    const refuse = (why: string) => {
      this.logger?.info({ pipelineId, why }, 'webhook delivery refused');
      return new UnauthorizedError('webhook signature does not verify');
    };
    for (const workspace of await this.workspaces.list()) {
      const db = await this.db(workspace.id);
      const row = await findPipelineRow(db, pipelineId);
      if (!row) continue;
      const trigger = (await findTriggers(db, pipelineId)).find((candidate) => candidate.type === 'webhook');
      if (!trigger?.secret) throw refuse('no webhook trigger');
      const verdict = verifyWebhook({ secret: trigger.secret, timestamp: headers.timestamp, signature: headers.signature, body: rawBody, nowSeconds: Math.floor(Date.now() / 1000) });
      if (!verdict.ok) throw refuse(verdict.reason);
      if (!(await recordWebhookDelivery(db, pipelineId, headers.signature!, nowIso()))) throw refuse('replayed delivery');
      // Signatures older than the tolerance window can never verify again: forget them.
      await forgetWebhookDeliveries(db, new Date(Date.now() - 15 * 60_000).toISOString());
      let payload: unknown = rawBody;
      try {
        payload = JSON.parse(rawBody) as unknown;
      } catch {
        // not JSON: nodes see the raw text
      }
      await markTriggerFired(db, trigger.id, nowIso());
      const run = await this.startRun(workspace.id, pipelineId, { type: 'webhook', payload: { body: payload } });
      return { runId: run.id };
    }
    throw refuse('unknown pipeline');
  }

  /**
   * Loads the workspace's `pipelines/*.json|yaml` files (PIPE-1 file authoring): new files become
   * pipelines, changed files replace their definition. A file with errors is reported, not stored.
   */
  async syncFiles(workspaceId: string): Promise<Array<{ file: string; pipelineId: string | null; errors: PipelineIssue[]; warnings: PipelineIssue[] }>> {
    const handle = await this.workspaces.handle(workspaceId);
    const dir = join(handle.dir, PIPELINE_FILES_DIR);
    const names = await readdir(dir).catch(() => [] as string[]);
    const results: Array<{ file: string; pipelineId: string | null; errors: PipelineIssue[]; warnings: PipelineIssue[] }> = [];
    const db = handle.database.db;
    for (const name of names.sort()) {
      const format = pipelineFormatOf(name);
      if (!format) continue;
      const text = await readFile(join(dir, name), 'utf8');
      const validation = validatePipelineSource(text, format);
      if (validation.definition) {
        const missing = unknownAgentIssues(validation.definition, await this.knownAgentIds(db));
        if (missing.length > 0) Object.assign(validation, { definition: null, errors: missing });
      }
      if (!validation.definition) {
        results.push({ file: name, pipelineId: null, errors: validation.errors, warnings: validation.warnings });
        continue;
      }
      const existingId = await findFilePipelineId(db, name);
      if (existingId) {
        const { rows } = this.triggerRows(existingId, validation.definition.triggers);
        await replacePipeline(db, existingId, { name: validation.definition.name, definition: JSON.stringify(validation.definition), warnings: JSON.stringify(validation.warnings), updated_at: nowIso() }, rows);
        results.push({ file: name, pipelineId: existingId, errors: [], warnings: validation.warnings });
      } else {
        const created = await this.create(workspaceId, validation.definition, { kind: 'file', path: name });
        results.push({ file: name, pipelineId: created.pipeline.id, errors: [], warnings: validation.warnings });
      }
    }
    return results;
  }

  /** Starts the schedule clock and the domain-event subscription. */
  startTriggers(): void {
    if (!this.unsubscribe) this.unsubscribe = this.events.subscribeAll((event) => void this.onEvent(event));
    if (!this.scheduleTimer) {
      const tick = () => {
        const now = new Date();
        void this.fireSchedules(now);
        this.scheduleTimer = setTimeout(tick, 60_000 - (Date.now() % 60_000) + 50);
        this.scheduleTimer.unref();
      };
      this.scheduleTimer = setTimeout(tick, 60_000 - (Date.now() % 60_000) + 50);
      this.scheduleTimer.unref();
    }
  }

  stopTriggers(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.scheduleTimer) clearTimeout(this.scheduleTimer);
    this.scheduleTimer = null;
  }

  /**
   * Fires every schedule trigger whose cron matches the minute of `now`, once per minute: the run's
   * idempotency key is the pipeline and the minute, so a double tick (or two processes) starts one run.
   * Minutes the server was down are not caught up.
   */
  async fireSchedules(now: Date): Promise<string[]> {
    const minute = new Date(now.getTime());
    minute.setUTCSeconds(0, 0);
    const started: string[] = [];
    for (const workspace of await this.workspaces.list()) {
      const db = await this.db(workspace.id);
      const triggers = await listScheduleTriggers(db);
      for (const trigger of triggers) {
        try {
          if (!cronMatches(parseCron(trigger.cron), minute)) continue;
          await markTriggerFired(db, trigger.id, minute.toISOString());
          const run = await this.startRun(workspace.id, trigger.pipelineId, { type: 'schedule', payload: { at: minute.toISOString() } }, `schedule:${minute.toISOString()}`);
          started.push(run.id);
        } catch (error) {
          this.logger?.error({ err: error, pipelineId: trigger.pipelineId }, 'scheduled pipeline run failed to start');
        }
      }
    }
    return started;
  }

  private async onEvent(event: WorkspaceEvent): Promise<void> {
    const names = Object.entries(EVENT_TRIGGERS).filter(([, fires]) => fires(event)).map(([name]) => name);
    if (names.length === 0) return;
    try {
      const db = await this.db(event.workspaceId);
      const triggers = await listEventTriggers(db);
      for (const trigger of triggers) {
        if (!names.includes(trigger.event)) continue;
        if (event.cause) {
          this.logger?.warn(
            { pipelineId: trigger.pipelineId, trigger: trigger.event, agentRunId: event.cause.agentRunId, tool: event.cause.tool },
            "event trigger not fired: an agent's tool call caused the event, and a pipeline run would not carry that agent's rules",
          );
          continue;
        }
        const subject = (event.data as { id?: unknown }).id;
        await markTriggerFired(db, trigger.id, nowIso());
        await this.startRun(event.workspaceId, trigger.pipelineId, { type: 'event', payload: { event: trigger.event, data: event.data } }, `event:${trigger.event}:${typeof subject === 'string' ? subject : event.sequence}`);
      }
    } catch (error) {
      this.logger?.error({ err: error, type: event.type }, 'event-triggered pipeline run failed to start');
    }
  }

  private triggerRows(pipelineId: string, triggers: PipelineTrigger[]): { rows: PipelineTriggerTable[]; secret: string | null } {
    let secret: string | null = null;
    const rows = triggers
      .filter((trigger) => trigger.type !== 'manual')
      .map((trigger) => {
        if (trigger.type === 'webhook') secret ??= randomBytes(32).toString('hex');
        return { id: newId('plt'), pipeline_id: pipelineId, type: trigger.type, config: JSON.stringify(trigger), secret: trigger.type === 'webhook' ? secret : null, last_fired_at: null };
      });
    return { rows, secret };
  }

  private async knownAgentIds(db: Kysely<WorkspaceSchema>): Promise<Set<string>> {
    return new Set((await listAgents(db)).map((agent) => agent.id));
  }

  private async db(workspaceId: string) {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }
}
