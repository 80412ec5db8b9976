import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolContext } from '../../src/tools/define-tool.js';
import { NodeWorktree, type NodeWorktreeOptions } from '../../src/worktree/node-worktree.js';

/** A fresh real temp directory; `cleanup` removes it. */
export async function makeTempDir(prefix = 'cc-tools-'): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** A tool context over a real worktree directory. */
export function makeContext(root: string, overrides: Partial<ToolContext> = {}, options: NodeWorktreeOptions = {}): ToolContext {
  return {
    worktree: new NodeWorktree(root, options),
    signal: new AbortController().signal,
    runId: 'run_test',
    runState: new Map(),
    ...overrides,
  };
}

/** True while a process exists and is not a zombie waiting to be reaped. */
export async function isAlive(pid: number): Promise<boolean> {
  const { readFile } = await import('node:fs/promises');
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls until `check` is true or `timeoutMs` passes; returns the last value. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 3_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
