import type { Finding } from '@server/schemas/review';

const RANK: Record<string, number> = { P0: 0, P1: 1, P2: 2, P3: 3 };
const LIVE = new Set(['open', 'consensusReady', 'contested']);

/** Pairs of live findings on the same lines whose priorities are two or more levels apart. */
export function disagreements(findings: readonly Finding[]): Array<[Finding, Finding]> {
  const live = findings.filter((finding) => finding.anchor && LIVE.has(finding.status));
  const pairs: Array<[Finding, Finding]> = [];
  for (let left = 0; left < live.length; left += 1) {
    for (let right = left + 1; right < live.length; right += 1) {
      const a = live[left]!;
      const b = live[right]!;
      if (a.anchor!.path !== b.anchor!.path) continue;
      if (a.anchor!.startLine > b.anchor!.endLine || b.anchor!.startLine > a.anchor!.endLine) continue;
      if (Math.abs(RANK[a.priority]! - RANK[b.priority]!) >= 2) pairs.push([a, b]);
    }
  }
  return pairs;
}
