import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** What one `control-center` command printed and how it exited. */
export interface CliResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs `control-center --data-dir <dataRoot> …args` from the sources (tsx), as an operator would; never throws on a non-zero exit. */
export async function runCli(dataRoot: string, ...args: string[]): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', '--data-dir', dataRoot, ...args]);
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failure = error as { stdout: string; stderr: string; code: number };
    return { stdout: failure.stdout, stderr: failure.stderr, code: failure.code };
  }
}
