/**
 * What the race-proof file access costs (SEC-4): read, write, glob and grep on a tree of 3,000 files,
 * with the descriptor-pinned resolution (`confined`, the default on Linux) and with the check-then-open
 * resolution the tools used before (`checkedPaths`, kept as the fallback for systems without
 * `/proc/self/fd`). Same tools, same tree, same process; medians of several rounds. On a shared machine
 * the CPU figures (this process's user+system time) are the ones to compare; wall time follows the load.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolContext } from '../src/tools/define-tool.js';
import { globTool } from '../src/tools/glob-tool.js';
import { grepTool } from '../src/tools/grep-tool.js';
import { readTool } from '../src/tools/read-tool.js';
import { writeTool } from '../src/tools/write-tool.js';
import { NodeWorktree } from '../src/worktree/node-worktree.js';
import { median, type BenchFigure } from './figure.js';

const TOP = 15;
const MIDDLE = 10;
const FILES = 20;
const ROUNDS = 5;
const SINGLE_CALLS = 300;

function buildTree(root: string): void {
  for (let top = 0; top < TOP; top += 1) {
    for (let middle = 0; middle < MIDDLE; middle += 1) {
      const directory = join(root, 'src', `pkg${top}`, `mod${middle}`);
      mkdirSync(directory, { recursive: true });
      for (let file = 0; file < FILES; file += 1) {
        writeFileSync(join(directory, `file${file}.ts`), `export const value${file} = ${file};\n// TODO ${top}-${middle}-${file}\n`.repeat(20));
      }
    }
  }
}

function context(root: string, fileAccess: 'confined' | 'checkedPaths'): ToolContext {
  return { worktree: new NodeWorktree(root, { fileAccess }), signal: new AbortController().signal, runId: 'run_bench', runState: new Map() };
}

async function timeMs(action: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  await action();
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

export default async function fileToolsBenchmark(): Promise<BenchFigure[]> {
  const root = mkdtempSync(join(tmpdir(), 'cc-bench-files-'));
  const figures: BenchFigure[] = [];
  try {
    buildTree(root);
    for (const mode of ['checkedPaths', 'confined'] as const) {
      const ctx = context(root, mode);
      const reads: number[] = [];
      const readCpu: number[] = [];
      const writeCpu: number[] = [];
      const writes: number[] = [];
      const globs: number[] = [];
      const greps: number[] = [];
      const grepCpu: number[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        const read = await timeMs(async () => {
          for (let call = 0; call < SINGLE_CALLS; call += 1) {
            const result = await readTool.execute({ path: `src/pkg${call % TOP}/mod${call % MIDDLE}/file${call % FILES}.ts` }, ctx);
            if (result.isError) throw new Error(result.content);
          }
        });
        reads.push((read.wallMs * 1000) / SINGLE_CALLS);
        readCpu.push((read.cpuMs * 1000) / SINGLE_CALLS);
        const write = await timeMs(async () => {
          for (let call = 0; call < SINGLE_CALLS; call += 1) {
            const result = await writeTool.execute({ path: `out/pkg${call % TOP}/w${call}.ts`, content: `export const w = ${call};\n` }, ctx);
            if (result.isError) throw new Error(result.content);
          }
        });
        writes.push((write.wallMs * 1000) / SINGLE_CALLS);
        writeCpu.push((write.cpuMs * 1000) / SINGLE_CALLS);
        const glob = await timeMs(() => globTool.execute({ pattern: 'src/**/*.ts', maxResults: 10_000 }, ctx));
        globs.push(glob.wallMs);
        const grep = await timeMs(() => grepTool.execute({ pattern: 'TODO 14-9-19', path: 'src' }, ctx));
        greps.push(grep.wallMs);
        grepCpu.push(grep.cpuMs);
      }
      figures.push(
        { metric: `${mode}_read_per_call`, value: median(reads), unit: 'us' },
        { metric: `${mode}_read_cpu_per_call`, value: median(readCpu), unit: 'us' },
        { metric: `${mode}_write_per_call`, value: median(writes), unit: 'us' },
        { metric: `${mode}_write_cpu_per_call`, value: median(writeCpu), unit: 'us' },
        { metric: `${mode}_glob_3000_files`, value: median(globs), unit: 'ms' },
        { metric: `${mode}_grep_3000_files`, value: median(greps), unit: 'ms' },
        { metric: `${mode}_grep_3000_files_cpu`, value: median(grepCpu), unit: 'ms' },
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return figures;
}
