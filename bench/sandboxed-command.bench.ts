/**
 * One sandboxed `bash -c true` as the built-in `bash` tool runs it (the cost of a turn):
 * a new bubblewrap per command against the conversation's warm sandbox (`sandbox/warm-sandbox.ts`),
 * same spec, same spawn rules, alternated command by command so both see the same machine load.
 * Figures: wall per command (p50, p90) for each, and this process's CPU per command for each (the
 * server's share: the IPC round trip; bubblewrap and bash run in other processes). Skipped (no
 * figures) where bubblewrap is unusable.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeBubblewrap } from '../src/sandbox/bubblewrap-sandbox.js';
import { CommandSandbox, type RunSandbox } from '../src/sandbox/command-sandbox.js';
import { NodeWorktree } from '../src/worktree/node-worktree.js';
import { median, percentile, type BenchFigure } from './figure.js';

const COMMANDS = 60;

function shell(run: RunSandbox, root: string): NodeWorktree {
  const options = { defaultEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...run.env } };
  return new NodeWorktree(root, { ...options, ...(run.wrapCommand ? { wrapCommand: run.wrapCommand } : {}), ...(run.spawnHelper ? { spawnHelper: run.spawnHelper } : {}) });
}

export default async function sandboxedCommand(): Promise<BenchFigure[]> {
  if (!(await probeBubblewrap()).available) return [];
  const root = mkdtempSync(join(tmpdir(), 'cc-bench-sandboxed-'));
  const worktreePath = join(root, 'checkout');
  mkdirSync(worktreePath);
  const input = { worktreePath, readOnly: false, sharedObjectsDir: null, workspaceDir: join(root, 'workspace'), reach: [] };
  const sandbox = new CommandSandbox({ sandbox: 'auto' });
  try {
    const perCommand = shell(await sandbox.forRun(input), worktreePath);
    const warm = shell(await sandbox.forRun({ ...input, conversationId: 'bench' }), worktreePath);
    const measured = { perCommand: { wall: [] as number[], cpu: [] as number[] }, warm: { wall: [] as number[], cpu: [] as number[] } };
    const once = async (worktree: NodeWorktree, into: { wall: number[]; cpu: number[] }, record: boolean) => {
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const result = await worktree.exec('true', { timeoutMs: 30_000, maxOutputBytes: 10_000, signal: new AbortController().signal });
      const wall = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      if (result.exitCode !== 0) throw new Error(`the sandboxed command failed: ${result.stderr}`);
      if (record) {
        into.wall.push(wall);
        into.cpu.push((cpu.user + cpu.system) / 1000);
      }
    };
    // Warm-up: the spawn helper and the warm sandbox start on their first command.
    for (let index = 0; index < 3; index += 1) {
      await once(perCommand, measured.perCommand, false);
      await once(warm, measured.warm, false);
    }
    for (let index = 0; index < COMMANDS; index += 1) {
      await once(perCommand, measured.perCommand, true);
      await once(warm, measured.warm, true);
    }
    return [
      { metric: 'per_command_sandbox_wall_p50', value: median(measured.perCommand.wall), unit: 'ms' },
      { metric: 'per_command_sandbox_wall_p90', value: percentile(measured.perCommand.wall, 90), unit: 'ms' },
      { metric: 'warm_sandbox_wall_p50', value: median(measured.warm.wall), unit: 'ms' },
      { metric: 'warm_sandbox_wall_p90', value: percentile(measured.warm.wall, 90), unit: 'ms' },
      { metric: 'per_command_sandbox_server_cpu_p50', value: median(measured.perCommand.cpu), unit: 'ms' },
      { metric: 'warm_sandbox_server_cpu_p50', value: median(measured.warm.cpu), unit: 'ms' },
    ];
  } finally {
    await sandbox.close();
    rmSync(root, { recursive: true, force: true });
  }
}
