import { markdownInline, type ExportFinding, type ExportVerdict } from './export-review.js';
import { LIVE_FINDING_STATUSES, type HunkMap, type Verdict } from './review-types.js';

/** The review event a forge records (GitHub's names). */
export type ForgeReviewEvent = 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT';

/** One inline comment, on head-side (`RIGHT`) lines the diff changed. */
export interface ForgeInlineComment {
  path: string;
  /** Last line of the range. */
  line: number;
  /** First line, when the range spans more than one line. */
  startLine?: number;
  body: string;
}

export interface ForgeReviewDraft {
  event: ForgeReviewEvent;
  body: string;
  comments: ForgeInlineComment[];
}

/**
 * The verdict → review event mapping: block → REQUEST_CHANGES, hold → COMMENT, and ship →
 * COMMENT too, not APPROVE: an approval posted with the operator's token would count as a human
 * approval under branch protection, and a verdict folded from agents' findings is evidence for a
 * person to weigh, not a person's sign-off. (GitHub also refuses APPROVE from the PR's own author,
 * which a personal token often is.)
 */
export const FORGE_EVENT: Readonly<Record<Verdict, ForgeReviewEvent>> = { block: 'REQUEST_CHANGES', hold: 'COMMENT', ship: 'COMMENT' };

/** The hidden marker that finds our own earlier review on the pull request (idempotent publishing). */
export function publicationMarker(reviewId: string, headSha: string): string {
  return `<!-- control-center-review ${reviewId} ${headSha} -->`;
}

/**
 * Agent text shown on the forge: Markdown-escaped on one line (no raw HTML, no headings, no fake
 * table rows) and with `@` spelled as an entity, so a finding cannot ping people or teams.
 */
export function forgeText(text: string): string {
  return markdownInline(text).replace(/@/g, '&#64;');
}

/** The part of an anchor the forge can hold a comment on: the first changed range it overlaps, clipped. */
function placeAnchor(anchor: NonNullable<ExportFinding['anchor']>, hunks: HunkMap): { startLine: number; line: number } | null {
  if (!Object.hasOwn(hunks, anchor.path)) return null;
  for (const [start, end] of hunks[anchor.path]!) {
    if (anchor.startLine <= end && anchor.endLine >= start) return { startLine: Math.max(anchor.startLine, start), line: Math.min(anchor.endLine, end) };
  }
  return null;
}

/**
 * The ONE review a verdict is published as: the event from {@link FORGE_EVENT}, a body with
 * the verdict, its reasons, the axes and the findings that have no place in the diff, and one inline
 * comment per live finding anchored on lines the current diff changed. Dismissed and resolved
 * findings are not published. Pure: the service sends what this returns.
 */
export function draftForgeReview(input: { reviewId: string; headSha: string; verdict: ExportVerdict; findings: readonly ExportFinding[]; hunks: HunkMap }): ForgeReviewDraft {
  const { verdict } = input;
  const live = input.findings.filter((finding) => LIVE_FINDING_STATUSES.has(finding.status));
  const ordered = [...live].sort((left, right) => left.priority.localeCompare(right.priority) || right.confidence - left.confidence);
  const comments: ForgeInlineComment[] = [];
  const unplaced: string[] = [];
  for (const finding of ordered) {
    const text = `**${finding.priority} ${finding.type}** (confidence ${finding.confidence}${finding.status === 'consensusReady' ? ', confirmed by a peer' : ''}): ${forgeText(finding.body)}`;
    const place = finding.anchor ? placeAnchor(finding.anchor, input.hunks) : null;
    if (finding.anchor && place) {
      comments.push({ path: finding.anchor.path, line: place.line, ...(place.startLine !== place.line ? { startLine: place.startLine } : {}), body: text });
    } else {
      const where = finding.anchor ? ` \`${forgeText(finding.anchor.path)}:${finding.anchor.startLine}-${finding.anchor.endLine}\`` : '';
      unplaced.push(`- ${text}${where}`);
    }
  }
  const lines = [`## Control Center review: ${verdict.verdict.toUpperCase()} (confidence ${verdict.confidence})`];
  if (verdict.headline) lines.push('', forgeText(verdict.headline));
  for (const reason of verdict.reasons) lines.push(`- ${forgeText(reason)}`);
  lines.push('', forgeText(verdict.delta.summary));
  if (verdict.axes.length > 0) {
    lines.push('', '| axis | result |', '|---|---|');
    for (const axis of verdict.axes) lines.push(`| ${forgeText(axis.axis)} | ${axis.status}${axis.detail ? ` — ${forgeText(axis.detail)}` : ''} |`);
  }
  if (unplaced.length > 0) lines.push('', '### Findings not on changed lines', ...unplaced);
  if (verdict.note) lines.push('', forgeText(verdict.note));
  lines.push('', publicationMarker(input.reviewId, input.headSha));
  return { event: FORGE_EVENT[verdict.verdict], body: lines.join('\n'), comments };
}
