import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const WEB_DIR = join(REPO_ROOT, 'web');
export const WEB_DIST_DIR = join(WEB_DIR, 'dist');

async function newestMtime(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of await readdir(path)) newest = Math.max(newest, await newestMtime(join(path, entry)));
  return newest;
}

async function isFresh(): Promise<boolean> {
  let built: number;
  try {
    built = (await stat(join(WEB_DIST_DIR, 'index.html'))).mtimeMs;
  } catch {
    return false;
  }
  const sources = await Promise.all([
    newestMtime(join(WEB_DIR, 'src')),
    newestMtime(join(WEB_DIR, 'index.html')),
    newestMtime(join(WEB_DIR, 'vite.config.ts')),
    // The pure-data server files the web bundles through the @server alias (see eslint.config.js).
    ...['src/core/modes.ts', 'src/core/picker.ts', 'src/schemas/event-types.ts', 'src/services/runs/compaction-words.ts', 'src/services/runs/read-context-report.ts'].map((file) => newestMtime(join(REPO_ROOT, file))),
  ]);
  return Math.max(...sources) <= built;
}

function runViteBuild(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', join(WEB_DIR, 'vite.config.ts'), '--logLevel', 'warn'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`vite build failed (exit ${code}):\n${output}`))));
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Builds web/dist when it is missing or older than anything in web/src (or web/index.html,
 * web/vite.config.ts). Test files run in parallel forks, so a lock directory makes one build and
 * the others wait for it.
 */
export async function ensureWebBuild(): Promise<string> {
  if (await isFresh()) return WEB_DIST_DIR;
  const lock = join(tmpdir(), `cc-web-build-${createHash('sha1').update(WEB_DIR).digest('hex').slice(0, 12)}.lock`);
  const deadline = Date.now() + 240_000;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      // Someone else is building; a lock older than 5 minutes belongs to a crashed build.
      const age = await stat(lock).then((info) => Date.now() - info.mtimeMs, () => 0);
      if (age > 300_000) await rm(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`timed out waiting for the web build lock ${lock}`);
      // Wait for the lock itself, not for a fresh-looking index.html: vite writes index.html before
      // the precompress plugin writes the .br/.gz twins, so a build in progress already looks fresh.
      await sleep(500);
    }
  }
  try {
    if (!(await isFresh())) await runViteBuild();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
  return WEB_DIST_DIR;
}
