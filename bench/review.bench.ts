/**
 * Review mode (REV-3, REV-4): the verdict over 10,000 findings and 20 axes, and the diff + hunk map of
 * a 5,000-file change.
 * - `fold_10k_findings_20_axes_ms`: the pure fold (`foldVerdict`) after the REV-3 read boundary
 *   (`partitionFindings`), median of 15 runs;
 * - `verdict_10k_findings_20_axes_ms`: the service's verdict as `finalize_review` computes it — reading
 *   10,000 findings from a real workspace SQLite file through the read boundary, 20 gate results and
 *   the fold — median of 7 runs;
 * - `diff_hunk_map_5000_files_ms`: `computeReviewDiff` on a real repository whose branch changes
 *   5,000 files (resolve refs, merge base, hardened `git diff`, REVIEW.md, hunk map), median of 5 runs;
 * - `hunk_map_parse_5000_files_ms`: parsing that diff alone.
 * Wall-clock figures on a shared machine; the load average is printed alongside.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { foldVerdict, type AxisResult } from '../src/core/review/fold-verdict.js';
import { parseHunkMap } from '../src/core/review/hunk-map.js';
import { partitionFindings } from '../src/core/review/read-finding.js';
import { FINDING_PRIORITIES, FINDING_TYPES } from '../src/core/review/review-types.js';
import { computeReviewDiff } from '../src/git/review-diff.js';
import { ControlCenter } from '../src/services/control-center.js';
import { median, type BenchFigure } from './figure.js';

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', args, { cwd, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' } });
}

function time(work: () => unknown): number {
  const start = process.hrtime.bigint();
  work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function timeAsync(work: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** A repository whose `change` branch edits one line in each of `files` files (three directories deep). */
function bigChangeRepo(root: string, files: number): string {
  const repo = join(root, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  const body = (index: number, changed: boolean) => Array.from({ length: 30 }, (_, line) => (line === 10 ? `value ${index} ${changed ? 'changed' : 'original'}` : `line ${line}`)).join('\n') + '\n';
  const path = (index: number) => join(repo, `d${index % 10}`, `e${index % 7}`, `file-${index}.txt`);
  for (let index = 0; index < files; index += 1) {
    mkdirSync(join(repo, `d${index % 10}`, `e${index % 7}`), { recursive: true });
    writeFileSync(path(index), body(index, false));
  }
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  git(repo, 'checkout', '-q', '-b', 'change');
  for (let index = 0; index < files; index += 1) writeFileSync(path(index), body(index, true));
  git(repo, 'commit', '-qam', 'change every file');
  git(repo, 'checkout', '-q', 'main');
  return repo;
}

export default async function reviewBench(): Promise<BenchFigure[]> {
  const loadBefore = loadavg()[0]!;
  const root = mkdtempSync(join(tmpdir(), 'cc-bench-review-'));
  try {
    const repo = bigChangeRepo(root, 5_000);
    const diffRuns: number[] = [];
    let diffText = '';
    for (let run = 0; run < 5; run += 1) {
      diffRuns.push(
        await timeAsync(async () => {
          const change = await computeReviewDiff(repo, 'main', 'change');
          diffText = change.diff;
          if (Object.keys(change.hunkMap).length !== 5_000) throw new Error(`hunk map has ${Object.keys(change.hunkMap).length} files`);
        }),
      );
    }
    const parseRuns = Array.from({ length: 7 }, () => time(() => parseHunkMap(diffText)));

    // 10,000 findings (some invalid, dropped at the boundary) and 20 axes (17 agent axes, 3 gates).
    const axesNames = Array.from({ length: 17 }, (_, index) => `axis-${index}`);
    const raws = Array.from({ length: 10_000 }, (_, index) => ({
      type: FINDING_TYPES[index % FINDING_TYPES.length]!,
      priority: index % 97 === 0 ? null : FINDING_PRIORITIES[index % 4]!,
      confidence: (index % 100) / 100,
      status: index % 5 === 0 ? 'resolved' : 'open',
      axis: axesNames[index % axesNames.length]!,
    }));
    const axes: AxisResult[] = [
      ...axesNames.map((axis) => ({ axis, kind: 'agent' as const, status: 'pass' as const })),
      ...['unit', 'lint', 'types'].map((axis, index) => ({ axis, kind: 'gated' as const, status: index === 1 ? ('fail' as const) : ('pass' as const) })),
    ];
    const foldRuns = Array.from({ length: 15 }, () => time(() => foldVerdict({ findings: partitionFindings(raws).kept, axes, threshold: 0.7 })));

    // The service path over a real workspace database.
    const app = await ControlCenter.open({ dataRoot: join(root, 'data'), env: {}, logger: pino({ level: 'silent' }) });
    const workspace = await app.workspaces.create('Bench');
    const { review } = await app.reviews.open(workspace.id, { repoPath: repo, base: 'main', head: 'change' });
    const db = (await app.workspaces.handle(workspace.id)).database.db;
    const now = new Date().toISOString();
    const hunkPaths = Object.keys(review.hunkMap);
    await db.transaction().execute(async (trx) => {
      for (let start = 0; start < raws.length; start += 500) {
        await trx
          .insertInto('review_findings')
          .values(
            raws.slice(start, start + 500).map((raw, offset) => ({
              id: `fnd_bench${start + offset}`,
              review_id: review.id,
              round: 1,
              type: raw.type,
              priority: raw.priority,
              confidence: raw.confidence,
              body: `finding ${start + offset}`,
              anchor_path: hunkPaths[(start + offset) % hunkPaths.length]!,
              anchor_start: 11,
              anchor_end: 11,
              axis: raw.axis,
              status: raw.status,
              carry: 'new',
              author_kind: 'agent',
              author_id: `ag_${(start + offset) % 3}`,
              run_id: null,
              confirmed_by: '[]',
              status_reason: null,
              status_by: null,
              resolved_round: null,
              created_at: now,
              updated_at: now,
            })),
          )
          .execute();
      }
      await trx.insertInto('review_gates').values(['unit', 'lint', 'types'].map((name) => ({ repo_path: repo, name, command: 'true', created_at: now }))).execute();
      await trx
        .insertInto('review_gate_results')
        .values(['unit', 'lint', 'types'].map((name) => ({ review_id: review.id, head_sha: review.headSha, name, command: 'true', status: name === 'lint' ? 'fail' : 'pass', exit_code: name === 'lint' ? 1 : 0, output: '', ran_at: now })))
        .execute();
    });
    const verdictRuns: number[] = [];
    for (let run = 0; run < 7; run += 1) {
      verdictRuns.push(
        await timeAsync(async () => {
          const verdict = await app.reviews.verdict(workspace.id, review.id);
          if (verdict.verdict !== 'block' || verdict.axes.length !== 20 + 3) throw new Error(`unexpected verdict ${verdict.verdict} with ${verdict.axes.length} axes`);
        }),
      );
    }
    await app.close();
    return [
      { metric: 'diff_hunk_map_5000_files_ms', value: median(diffRuns), unit: 'ms' },
      { metric: 'hunk_map_parse_5000_files_ms', value: median(parseRuns), unit: 'ms' },
      { metric: 'diff_bytes_5000_files', value: diffText.length, unit: 'bytes' },
      { metric: 'fold_10k_findings_20_axes_ms', value: median(foldRuns), unit: 'ms' },
      { metric: 'verdict_10k_findings_20_axes_ms', value: median(verdictRuns), unit: 'ms' },
      { metric: 'load_average_1m_before', value: loadBefore, unit: 'load' },
      { metric: 'load_average_1m_after', value: loadavg()[0]!, unit: 'load' },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
