import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { reviewToMarkdown, reviewToSarif } from '../../core/review/export-review.js';
import { FINDING_TYPES } from '../../core/review/review-types.js';
import { ValidationError } from '../../errors/index.js';
import { ApiError } from '../../schemas/common.js';
import {
  AssessAxisBody,
  AxisAssessment,
  DispatchReviewBody,
  FinalizeReviewBody,
  Finding,
  FindingAnchor,
  FindingActionBody,
  ForgeLink,
  GateResult,
  OpenAnyReviewBody,
  ReviewPublication,
  PutReviewGatesBody,
  ReasonBody,
  Review,
  ReviewGates,
  VerdictView,
} from '../../schemas/review.js';
import type { ControlCenter } from '../../services/control-center.js';
import { operatorOf } from '../authenticate.js';
import { PRODUCT_VERSION } from '../product-version.js';
import { WorkspaceParams } from './workspace-routes.js';

const ReviewParams = WorkspaceParams.extend({ reviewId: z.string().min(1) });
const FindingParams = ReviewParams.extend({ findingId: z.string().min(1) });
const Dispatched = z.array(z.object({ agent: z.string(), runId: z.string().nullable(), queued: z.boolean() }));
const OPERATOR = { access: 'operator' } as const;
const Opened = z.object({ review: Review, created: z.boolean(), reReview: z.boolean(), dispatched: Dispatched, pullRequest: ForgeLink.optional() });
const ForgeState = z.object({ pullRequest: ForgeLink.nullable(), publication: ReviewPublication.nullable() });

const AddFindingBody = z.strictObject({
  type: z.enum(FINDING_TYPES),
  priority: z.enum(['P0', 'P1', 'P2', 'P3']),
  confidence: z.number().min(0).max(1),
  body: z.string().min(1).max(20_000),
  anchor: FindingAnchor.optional(),
  axis: z.string().min(1).max(40).optional(),
});

/** Pull-request reviews (REV-1..5, MODE-6): open, read, act on findings as a person, verdict, exports. */
export function reviewRoutes(app: ControlCenter): FastifyPluginAsyncZod {
  return async (server) => {
    const who = (principal: Parameters<typeof operatorOf>[0]) => ({ kind: 'operator' as const, id: operatorOf(principal).operatorId });

    server.post(
      '/api/workspaces/:workspaceId/reviews',
      {
        config: { ...OPERATOR, role: 'member' },
        schema: {
          tags: ['reviews'],
          params: WorkspaceParams,
          body: OpenAnyReviewBody,
          response: { 200: Opened, 201: Opened, 400: ApiError, 403: ApiError, 404: ApiError, 409: ApiError },
        },
      },
      async (request, reply) => {
        const { workspaceId } = request.params;
        const { prUrl, repoPath, base, head, ...rest } = request.body;
        // Reviewers are checked before anything is made, so a bad name changes nothing.
        for (const [index, name] of (request.body.reviewers ?? []).entries()) {
          if (!(await app.agents.findByName(workspaceId, name))) {
            throw new ValidationError(`reviewers.${index}`, `there is no agent named ${JSON.stringify(name)} in this workspace`);
          }
        }
        let opened: { review: Review; created: boolean; reReview: boolean; pullRequest?: ForgeLink };
        if (prUrl !== undefined) {
          const extra = ([['repoPath', repoPath], ['base', base], ['head', head]] as const).find(([, value]) => value !== undefined);
          if (extra) throw new ValidationError(extra[0], `give either prUrl, or repoPath, base and head — not ${extra[0]} with prUrl`);
          opened = await app.forgeReviews.open(workspaceId, { prUrl, ...rest });
        } else {
          const missing = ([['repoPath', repoPath], ['base', base], ['head', head]] as const).find(([, value]) => value === undefined);
          if (missing) throw new ValidationError(missing[0], `${missing[0]} is required (or give prUrl to review a pull request)`);
          opened = await app.reviews.open(workspaceId, { repoPath: repoPath!, base: base!, head: head!, ...rest });
        }
        const dispatched = request.body.reviewers?.length ? await app.reviews.dispatch(workspaceId, opened.review.id, request.body.reviewers) : [];
        return reply.code(opened.created ? 201 : 200).send({ ...opened, dispatched });
      },
    );
    server.get(
      '/api/workspaces/:workspaceId/reviews',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['reviews'], params: WorkspaceParams, response: { 200: z.object({ reviews: z.array(Review) }), 404: ApiError } } },
      async (request) => ({ reviews: await app.reviews.list(request.params.workspaceId) }),
    );
    server.get(
      '/api/workspaces/:workspaceId/reviews/:reviewId',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['reviews'], params: ReviewParams, response: { 200: Review, 404: ApiError } } },
      async (request) => app.reviews.get(request.params.workspaceId, request.params.reviewId),
    );
    server.get(
      '/api/workspaces/:workspaceId/reviews/:reviewId/diff',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['reviews'], params: ReviewParams, response: { 200: z.object({ diff: z.string() }), 404: ApiError } } },
      async (request) => ({ diff: await app.reviews.diff(request.params.workspaceId, request.params.reviewId) }),
    );
    server.get(
      '/api/workspaces/:workspaceId/reviews/:reviewId/findings',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['reviews'], params: ReviewParams, response: { 200: z.object({ findings: z.array(Finding), dropped: z.number().int() }), 404: ApiError } } },
      async (request) => app.reviews.findings(request.params.workspaceId, request.params.reviewId),
    );
    server.post(
      '/api/workspaces/:workspaceId/reviews/:reviewId/findings',
      { config: { ...OPERATOR, role: 'member' }, schema: { tags: ['reviews'], params: ReviewParams, body: AddFindingBody, response: { 201: Finding, 400: ApiError, 404: ApiError } } },
      async (request, reply) =>
        reply.code(201).send(await app.reviews.addFinding(request.params.workspaceId, request.params.reviewId, who(request.principal), null, request.body)),
    );
    for (const action of ['confirm', 'resolve'] as const) {
      server.post(
        `/api/workspaces/:workspaceId/reviews/:reviewId/findings/:findingId/${action}`,
        { config: { ...OPERATOR, role: 'member' }, schema: { tags: ['reviews'], params: FindingParams, body: FindingActionBody.nullish(), response: { 200: Finding, 400: ApiError, 404: ApiError, 409: ApiError } } },
        async (request) => {
          const { workspaceId, reviewId, findingId } = request.params;
          return action === 'confirm'
            ? app.reviews.confirm(workspaceId, findingId, who(request.principal), reviewId)
            : app.reviews.resolve(workspaceId, findingId, who(request.principal), request.body?.reason, reviewId);
        },
      );
    }
    for (const action of ['dismiss', 'contest'] as const) {
      server.post(
        `/api/workspaces/:workspaceId/reviews/:reviewId/findings/:findingId/${action}`,
        { config: { ...OPERATOR, role: 'member' }, schema: { tags: ['reviews'], params: FindingParams, body: ReasonBody, response: { 200: Finding, 400: ApiError, 404: ApiError, 409: ApiError } } },
        async (request) => {
          const { workspaceId, reviewId, findingId } = request.params;
          return action === 'dismiss'
            ? app.reviews.dismiss(workspaceId, findingId, who(request.principal), request.body.reason, reviewId)
            : app.reviews.contest(workspaceId, findingId, who(request.principal), request.body.reason, reviewId);
        },
      );
    }
    server.get(
      '/api/workspaces/:workspaceId/reviews/:reviewId/assessments',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['reviews'], params: ReviewParams, response: { 200: z.object({ assessments: z.array(AxisAssessment) }), 404: ApiError } } },
      async (request) => ({ assessments: await app.reviews.assessments(request.params.workspaceId, request.params.reviewId) }),
    );
    server.post(
      '/api/workspaces/:workspaceId/reviews/:reviewId/assessments',
      {
        config: { ...OPERATOR, role: 'member' },
        schema: {
          tags: ['reviews'],
          params: ReviewParams,
          body: AssessAxisBody,
          description: "Records a person's explicit assessment of one axis of the review's current head, with what was checked: the evidence an agent axis needs to pass.",
          response: { 201: AxisAssessment, 400: ApiError, 404: ApiError },
        },
      },
      async (request, reply) =>
        reply.code(201).send(await app.reviews.assessAxis(request.params.workspaceId, request.params.reviewId, { ...who(request.principal), name: 'operator' }, null, request.body)),
    );
    server.get(
      '/api/workspaces/:workspaceId/reviews/:reviewId/verdict',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['reviews'], params: ReviewParams, response: { 200: z.object({ current: VerdictView, published: VerdictView.nullable() }), 404: ApiError } } },
      async (request) => {
        const { workspaceId, reviewId } = request.params;
        const current = await app.reviews.verdict(workspaceId, reviewId);
        return { current, published: (await app.reviews.get(workspaceId, reviewId)).verdict };
      },
    );
    server.post(
      '/api/workspaces/:workspaceId/reviews/:reviewId/finalize',
      { config: { ...OPERATOR, role: 'member' }, schema: { tags: ['reviews'], params: ReviewParams, body: FinalizeReviewBody.nullish(), response: { 200: Review, 400: ApiError, 404: ApiError } } },
      async (request) =>
        app.reviews.finalize(request.params.workspaceId, request.params.reviewId, who(request.principal), {
          ...(request.body?.headline !== undefined ? { headline: request.body.headline } : {}),
          ...(request.body?.note !== undefined ? { note: request.body.note } : {}),
        }),
    );
    server.post(
      '/api/workspaces/:workspaceId/reviews/:reviewId/dispatch',
      { config: { ...OPERATOR, role: 'member' }, schema: { tags: ['reviews'], params: ReviewParams, body: DispatchReviewBody.nullish(), response: { 202: z.object({ dispatched: Dispatched }), 400: ApiError, 404: ApiError } } },
      async (request, reply) => reply.code(202).send({ dispatched: await app.reviews.dispatch(request.params.workspaceId, request.params.reviewId, request.body?.reviewers) }),
    );
    server.get(
      '/api/workspaces/:workspaceId/reviews/:reviewId/gates',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['reviews'], params: ReviewParams, response: { 200: z.object({ results: z.array(GateResult) }), 404: ApiError } } },
      async (request) => ({ results: await app.reviews.gateResults(request.params.workspaceId, request.params.reviewId) }),
    );
    server.post(
      '/api/workspaces/:workspaceId/reviews/:reviewId/gates/run',
      { config: { ...OPERATOR, role: 'member' }, schema: { tags: ['reviews'], params: ReviewParams, response: { 200: z.object({ results: z.array(GateResult) }), 404: ApiError } } },
      async (request) => ({ results: await app.reviews.runGates(request.params.workspaceId, request.params.reviewId) }),
    );
    server.get(
      '/api/workspaces/:workspaceId/reviews/:reviewId/publication',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['reviews'], params: ReviewParams, response: { 200: ForgeState, 404: ApiError } } },
      async (request) => app.forgeReviews.state(request.params.workspaceId, request.params.reviewId),
    );
    server.post(
      '/api/workspaces/:workspaceId/reviews/:reviewId/publish',
      {
        config: { ...OPERATOR, role: 'member' },
        schema: {
          tags: ['reviews'],
          params: ReviewParams,
          description: 'Publishes the finalized verdict to the pull request as one review with inline comments, gated by the prPublish policy class. 202 while an approval is pending.',
          response: { 200: z.object({ publication: ReviewPublication, created: z.boolean() }), 202: z.object({ publication: ReviewPublication, created: z.boolean() }), 400: ApiError, 403: ApiError, 404: ApiError, 409: ApiError },
        },
      },
      async (request, reply) => {
        const published = await app.forgeReviews.publish(request.params.workspaceId, request.params.reviewId, operatorOf(request.principal));
        return reply.code(published.publication.status === 'awaitingApproval' ? 202 : 200).send(published);
      },
    );
    server.get(
      '/api/workspaces/:workspaceId/review-gates',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['reviews'], params: WorkspaceParams, querystring: z.strictObject({ repoPath: z.string().min(1).max(4096) }), response: { 200: ReviewGates, 404: ApiError } } },
      async (request) => ({ repoPath: request.query.repoPath, gates: await app.reviews.gates(request.params.workspaceId, request.query.repoPath) }),
    );
    server.put(
      '/api/workspaces/:workspaceId/review-gates',
      { config: { ...OPERATOR, role: 'admin' }, schema: { tags: ['reviews'], params: WorkspaceParams, body: PutReviewGatesBody, response: { 200: ReviewGates, 400: ApiError, 404: ApiError } } },
      async (request) => ({ repoPath: request.body.repoPath, gates: await app.reviews.setGates(request.params.workspaceId, request.body.repoPath, request.body.gates) }),
    );
    const exportData = async (workspaceId: string, reviewId: string) => {
      const review = await app.reviews.get(workspaceId, reviewId);
      const { findings } = await app.reviews.findings(workspaceId, reviewId);
      return { review, findings, verdict: review.verdict ?? (await app.reviews.verdict(workspaceId, reviewId)) };
    };
    server.get(
      '/api/workspaces/:workspaceId/reviews/:reviewId/export.sarif',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['reviews'], params: ReviewParams, response: { 200: z.record(z.string(), z.unknown()), 404: ApiError } } },
      async (request, reply) => {
        const { review, findings, verdict } = await exportData(request.params.workspaceId, request.params.reviewId);
        void reply.header('content-disposition', `attachment; filename="review-${review.id}.sarif"`);
        return reviewToSarif(review, findings, verdict, PRODUCT_VERSION);
      },
    );
    server.get(
      '/api/workspaces/:workspaceId/reviews/:reviewId/export.md',
      { config: { ...OPERATOR, role: 'viewer' }, schema: { tags: ['reviews'], params: ReviewParams, response: { 200: z.string(), 404: ApiError } } },
      async (request, reply) => {
        const { review, findings, verdict } = await exportData(request.params.workspaceId, request.params.reviewId);
        void reply.header('content-disposition', `attachment; filename="review-${review.id}.md"`).type('text/markdown; charset=utf-8');
        return reviewToMarkdown(review, findings, verdict);
      },
    );
  };
}
