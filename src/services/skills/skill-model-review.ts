import { applyModelReview, MODEL_REVIEW_SYSTEM, modelReviewPrompt, parseModelReviewAnswer } from '../../core/skills/review/model-review-verdict.js';
import type { ScanReport, SkillFolderEntry } from '../../core/skills/scan/scan-types.js';
import { ModelResponseCollector } from '../../llm/collect-model-response.js';
import { resolveModel } from '../../llm/model-catalog.js';
import type { WorkspaceSettings } from '../../schemas/settings.js';

/** What the review needs from the server: the workspace's settings and the environment keys are read from. */
export interface ModelReviewDeps {
  settings: { get(workspaceId: string): Promise<WorkspaceSettings> };
  env: Record<string, string | undefined>;
  /** Tests point the provider at the scripted model server through settings; this is for a custom fetch. */
  fetch?: typeof fetch;
}

/**
 * The optional model review of a skill (SKL-3). Off unless the workspace setting `skillModelReview`
 * names a model. When on, the configured model is asked for a verdict on the skill's text and the
 * answer is folded in with {@link applyModelReview} (stricter only). Any failure — no key, an
 * upstream error, a timeout, an answer that is not a verdict — throws: the caller refuses the
 * install (fail-closed), it never falls back to the static verdict alone.
 */
export async function reviewSkillWithModel(deps: ModelReviewDeps, workspaceId: string, entries: readonly SkillFolderEntry[], report: ScanReport): Promise<ScanReport> {
  const settings = await deps.settings.get(workspaceId);
  const review = settings.skillModelReview;
  if (!review) return report;
  const resolved = resolveModel({ modelId: review.modelId, settings, env: deps.env, maxRetries: 0, ...(deps.fetch ? { fetch: deps.fetch } : {}) });
  const signal = AbortSignal.timeout(review.timeoutSeconds * 1000);
  const collector = new ModelResponseCollector();
  for await (const event of resolved.streamFn({ model: '', system: MODEL_REVIEW_SYSTEM, messages: [{ role: 'user', content: modelReviewPrompt(entries) }], tools: [], maxTokens: 1024 }, signal)) {
    collector.push(event);
  }
  const response = collector.result();
  if (signal.aborted) throw new Error(`the review model did not answer within ${review.timeoutSeconds} s`);
  if (response.stopReason === 'error' || response.stopReason === 'aborted') throw new Error(`the review model failed: ${response.errorMessage ?? response.stopReason}`);
  return applyModelReview(report, parseModelReviewAnswer(response.text));
}
