import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What one `control-center` command printed and how it exited. */
export interface CliResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs `control-center …args` from the sources (tsx); never throws on a non-zero exit. */
async function runMain(args: readonly string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args]);
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failure = error as { stdout: string; stderr: string; code: number };
    return { stdout: failure.stdout, stderr: failure.stderr, code: failure.code };
  }
}

/** Runs `control-center --data-dir <dataRoot> …args` from the sources (tsx), as an operator would; never throws on a non-zero exit. */
export async function runCli(dataRoot: string, ...args: string[]): Promise<CliResult> {
  return runMain(['--data-dir', dataRoot, ...args]);
}

/** Runs `control-center --url … --token … …args -w <workspace>` against a server started in the test (its URL and operator token). */
export async function runCliAgainst(server: { url: string; token: string }, workspaceId: string, ...args: string[]): Promise<CliResult> {
  return runMain(['--url', server.url, '--token', server.token, ...args, '-w', workspaceId]);
}
