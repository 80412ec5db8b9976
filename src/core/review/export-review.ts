import { pathToFileURL } from 'node:url';
import type { FindingAnchor, FindingPriority, FindingStatus, FindingType, Verdict } from './review-types.js';

/** What the exports need of a review. */
export interface ExportReview {
  title: string;
  repoPath: string;
  base: string;
  head: string;
  baseSha: string;
  headSha: string;
  mergeBaseSha: string;
  round: number;
}

export interface ExportFinding {
  id: string;
  type: FindingType;
  priority: FindingPriority;
  confidence: number;
  body: string;
  anchor: FindingAnchor | null;
  axis: string | null;
  status: FindingStatus;
  author: { kind: string; id: string };
}

export interface ExportVerdict {
  verdict: Verdict;
  confidence: number;
  reasons: string[];
  axes: Array<{ axis: string; kind: string; status: string; detail?: string }>;
  delta: { summary: string };
  headline: string | null;
  note: string | null;
}

/** SARIF levels by priority: P0/P1 are errors, P2 a warning, P3 a note. */
const LEVEL: Record<FindingPriority, 'error' | 'warning' | 'note'> = { P0: 'error', P1: 'error', P2: 'warning', P3: 'note' };

/** The uriBaseId that stands for the repository's root: result paths are relative to it. */
const REPO_ROOT = 'REPO_ROOT';

/** A rule's display name, distinct from its id as SARIF asks (`bug` → `BugFinding`). */
function ruleName(type: string): string {
  return `${type.charAt(0).toUpperCase()}${type.slice(1)}Finding`;
}

/**
 * The review as a SARIF 2.1.0 log: one run, one rule per finding type, one result per finding with
 * its head-side region; dismissed and resolved findings carry a suppression or `kind: pass`.
 * Written to pass Microsoft's SARIF validator without warnings: rules have a name distinct from their
 * id, the tool gives its version, and the repository maps to the uriBaseId the result paths use, so a
 * consumer can place every result in the repository.
 */
export function reviewToSarif(review: ExportReview, findings: readonly ExportFinding[], verdict: ExportVerdict | null, toolVersion: string): Record<string, unknown> {
  const types = [...new Set(findings.map((finding) => finding.type))].sort();
  const repoRootUri = pathToFileURL(review.repoPath.endsWith('/') ? review.repoPath : `${review.repoPath}/`).href;
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'Control Center review',
            version: toolVersion,
            informationUri: 'https://example.invalid/control-center/review',
            rules: types.map((type) => ({ id: type, name: ruleName(type), shortDescription: { text: `Review finding: ${type}` } })),
          },
        },
        originalUriBaseIds: { [REPO_ROOT]: { uri: repoRootUri } },
        versionControlProvenance: [{ repositoryUri: repoRootUri, revisionId: review.headSha, branch: review.head, mappedTo: { uriBaseId: REPO_ROOT } }],
        properties: { base: review.base, baseSha: review.baseSha, headSha: review.headSha, mergeBaseSha: review.mergeBaseSha, round: review.round, verdict: verdict?.verdict ?? null, verdictConfidence: verdict?.confidence ?? null },
        results: findings.map((finding) => ({
          ruleId: finding.type,
          ruleIndex: types.indexOf(finding.type),
          level: LEVEL[finding.priority],
          ...(finding.status === 'resolved' ? { kind: 'pass' } : {}),
          message: { text: finding.body },
          ...(finding.anchor
            ? {
                locations: [
                  {
                    physicalLocation: {
                      artifactLocation: { uri: finding.anchor.path.split('/').map(encodeURIComponent).join('/'), uriBaseId: REPO_ROOT },
                      region: { startLine: finding.anchor.startLine, endLine: finding.anchor.endLine },
                    },
                  },
                ],
              }
            : {}),
          ...(finding.status === 'dismissed' ? { suppressions: [{ kind: 'external', status: 'accepted' }] } : {}),
          partialFingerprints: { findingId: finding.id },
          properties: { id: finding.id, priority: finding.priority, confidence: finding.confidence, status: finding.status, axis: finding.axis, author: `${finding.author.kind}:${finding.author.id}` },
        })),
      },
    ],
  };
}

/** Markdown inline text: no raw HTML, no breaking out of the line (agent text is hostile). */
export function markdownInline(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]|#]/g, (char) => `\\${char}`)
    .replace(/\s+/g, ' ')
    .trim();
}

/** The review as a Markdown summary: verdict, axes, the delta, and the findings by priority. */
export function reviewToMarkdown(review: ExportReview, findings: readonly ExportFinding[], verdict: ExportVerdict | null): string {
  const lines = [`# Review: ${markdownInline(review.title)}`, '', `- base \`${review.baseSha.slice(0, 12)}\` (${markdownInline(review.base)}), head \`${review.headSha.slice(0, 12)}\` (${markdownInline(review.head)}), merge base \`${review.mergeBaseSha.slice(0, 12)}\``, `- round ${review.round}`];
  if (verdict) {
    lines.push('', `## Verdict: ${verdict.verdict.toUpperCase()} (confidence ${verdict.confidence})`);
    if (verdict.headline) lines.push('', markdownInline(verdict.headline));
    for (const reason of verdict.reasons) lines.push(`- ${markdownInline(reason)}`);
    lines.push('', `${verdict.delta.summary}`, '', '| axis | kind | result |', '|---|---|---|');
    for (const axis of verdict.axes) lines.push(`| ${markdownInline(axis.axis)} | ${axis.kind} | ${axis.status}${axis.detail ? ` — ${markdownInline(axis.detail)}` : ''} |`);
    if (verdict.note) lines.push('', markdownInline(verdict.note));
  } else {
    lines.push('', '## Verdict: not finalized');
  }
  lines.push('', '## Findings');
  if (findings.length === 0) lines.push('', 'None.');
  const order = [...findings].sort((left, right) => left.priority.localeCompare(right.priority) || right.confidence - left.confidence);
  for (const finding of order) {
    const where = finding.anchor ? ` — \`${markdownInline(finding.anchor.path)}:${finding.anchor.startLine}-${finding.anchor.endLine}\`` : '';
    lines.push(`- **${finding.priority} ${finding.type}** (${finding.status}, confidence ${finding.confidence})${where}: ${markdownInline(finding.body)}`);
  }
  return `${lines.join('\n')}\n`;
}
