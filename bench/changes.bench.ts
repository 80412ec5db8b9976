/**
 * CHG-1: a conversation's Changes for a 2,000-file change (2,000 new files and one modified, all
 * uncommitted, written by one harness turn on a real repository). Figures, medians of several runs:
 * - `list_api_ms`: GET …/changes (first page of 200, totals of all), the checkout snapshot included;
 * - `file_diff_api_ms`: one file's diff;
 * - `first_paint_ms`: in Debian's chromium, timed by the page itself, from just before the click on the
 *   header's Changes button (page just loaded, nothing cached, the view's code not yet fetched) to the
 *   frame after the totals and the first page of 200 files are in the document; with, from the page's resource timings, when after the
 *   click the listing was requested (`paint_request_start_ms`) and how long it took (`paint_request_ms`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLiveAppSuite } from '../test/support/e2e/app-server.js';
import { reply } from '../test/support/scripted-model-server.js';
import { median, type BenchFigure } from './figure.js';

const FILES = 2000;
const ROUNDS = 5;

export default async function changesBench(): Promise<BenchFigure[]> {
  const scratch = mkdtempSync(join(tmpdir(), 'cc-bench-changes-'));
  const repoPath = join(scratch, 'repo');
  execFileSync('git', ['init', '-q', '-b', 'main', repoPath]);
  writeFileSync(join(repoPath, 'README.md'), 'start\n');
  execFileSync('git', ['add', 'README.md'], { cwd: repoPath });
  execFileSync('git', ['-c', 'user.name=B', '-c', 'user.email=b@example.com', 'commit', '-q', '-m', 'readme'], { cwd: repoPath });
  const suite = await startLiveAppSuite('Bench');
  try {
    const { server, model, ui, workspaceId } = suite;
    const api = (method: string, path: string, body?: unknown) => server.api(method, `/api/workspaces/${workspaceId}${path}`, body);
    const space = (await api('POST', '/spaces', { name: 'Many files', repoPath, autonomy: 'actFreely' })).body;
    const conversation = (await api('POST', `/spaces/${space.id}/conversations`, { title: 'Two thousand' })).body;
    model.script(
      reply().tool('bash', { command: `mkdir -p many && for i in $(seq 1 ${FILES}); do printf 'line %s\\n' "$i" > many/f$i.ts; done && printf 'start\\nmore\\n' > README.md` }),
      reply().text('done'),
    );
    const runId = (await api('POST', `/conversations/${conversation.id}/messages`, { text: 'write many files' })).body.run.id;
    for (let waited = 0; (await api('GET', `/runs/${runId}`)).body.run.state !== 'completed'; waited += 200) {
      if (waited > 120_000) throw new Error('the bench run did not complete');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const changesPath = `/conversations/${conversation.id}/changes`;
    const listTimes: number[] = [];
    const diffTimes: number[] = [];
    let listing: { from: string; to: string; totals: { files: number } } | null = null;
    for (let round = 0; round < ROUNDS; round++) {
      const started = performance.now();
      const listed = await api('GET', changesPath);
      listTimes.push(performance.now() - started);
      if (listed.status !== 200) throw new Error(`changes: ${JSON.stringify(listed.body)}`);
      listing = listed.body;
      const diffStarted = performance.now();
      await api('GET', `${changesPath}/diff?from=${listed.body.from}&to=${listed.body.to}&path=README.md`);
      diffTimes.push(performance.now() - diffStarted);
    }
    if (listing?.totals.files !== FILES + 1) throw new Error(`expected ${FILES + 1} files, got ${listing?.totals.files}`);

    const paintTimes: number[] = [];
    const requestStarts: number[] = [];
    const requestTimes: number[] = [];
    const { page } = ui;
    for (let round = 0; round < ROUNDS; round++) {
      // A fresh load each round: no cached listing, and the view's lazy code fetched on the click.
      await page.goto(`${server.url}/w/${workspaceId}/c/${conversation.id}`);
      const button = page.getByRole('button', { name: 'Changes', exact: true });
      await button.waitFor();
      // Timed in the page, so the browser protocol's round trips on a loaded machine are not counted:
      // an observer notes the frame after the 200th file row and the totals are in the document.
      await page.evaluate(`(() => {
        const observer = new MutationObserver(() => {
          if (document.querySelectorAll('.changes-file').length >= 200 && document.querySelector('[data-testid="changes-totals"]')) {
            observer.disconnect();
            requestAnimationFrame(() => { window.changesPaintedAt = performance.now(); });
          }
        });
        observer.observe(document.body, { childList: true, subtree: true });
      })()`);
      await button.hover();
      const clickedAt = Number(await page.evaluate('performance.now()'));
      await button.click();
      await page.getByTestId('changes-totals').waitFor({ timeout: 60_000 });
      await page.locator('.changes-file').nth(199).waitFor({ timeout: 60_000 });
      await page.waitForFunction('window.changesPaintedAt !== undefined');
      paintTimes.push(Number(await page.evaluate('window.changesPaintedAt')) - clickedAt);
      // Where the time went, from the page's own resource timings: when the listing was asked for, and how long it took.
      const [request] = (await page.evaluate(
        `performance.getEntriesByType('resource').filter((entry) => entry.name.includes('/changes?')).map((entry) => [entry.startTime, entry.responseEnd])`,
      )) as Array<[number, number]>;
      if (request) {
        requestStarts.push(request[0] - clickedAt);
        requestTimes.push(request[1] - request[0]);
      }
    }
    return [
      { metric: 'list_api_ms', value: median(listTimes), unit: 'ms' },
      { metric: 'file_diff_api_ms', value: median(diffTimes), unit: 'ms' },
      { metric: 'first_paint_ms', value: median(paintTimes), unit: 'ms' },
      { metric: 'paint_request_start_ms', value: median(requestStarts), unit: 'ms' },
      { metric: 'paint_request_ms', value: median(requestTimes), unit: 'ms' },
      { metric: 'files', value: FILES + 1, unit: 'files' },
      { metric: 'load_1min', value: loadavg()[0]!, unit: 'load' },
    ];
  } finally {
    await suite.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
