/** TOOL-2 from the command line: `mcp add | list | tools | classes | enable | disable | remove` against a real server process and server-everything. */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDataRoot } from '../support/test-server.js';

const run = promisify(execFile);
const CLI = ['--import', 'tsx', 'src/cli/main.ts'];
const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

let dataRoot: string;
let serverProcess: ChildProcess;

async function cli(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...CLI, '--data-dir', dataRoot, ...args]);
    return { stdout, stderr, code: 0 };
  } catch (error) {
    const failure = error as { stdout: string; stderr: string; code: number };
    return { stdout: failure.stdout, stderr: failure.stderr, code: failure.code };
  }
}

beforeAll(async () => {
  dataRoot = await makeDataRoot();
  serverProcess = spawn(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', dataRoot], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let output = '';
    serverProcess.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on/.test(output) && output.includes('curl')) resolve();
    });
    serverProcess.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}, 120_000);

afterAll(async () => {
  serverProcess?.kill('SIGTERM');
  if (serverProcess) await new Promise((resolve) => serverProcess.once('exit', resolve));
  await rm(dataRoot, { recursive: true, force: true });
});

describe('control-center mcp (TOOL-2)', () => {
  it('add lists the tools at once; secrets are never printed; classes, disable, listing again and remove', async () => {
    const added = await cli('mcp', 'add', 'everything', '--command', process.execPath, '--arg', everything, '--arg', 'stdio', '--env', 'EVERYTHING_TOKEN=cli-secret-55', '--agent', 'engineer');
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('everything (stdio)');
    expect(added.stdout).toContain('secrets: EVERYTHING_TOKEN');
    expect(added.stdout).toMatch(/mcp__everything__echo\s+\[pass\]\s+every class \(not reviewed: every call asks\)/);
    expect(added.stdout).not.toContain('cli-secret-55');

    const classes = await cli('mcp', 'classes', 'everything', 'get-sum', 'processSpawn', 'networkEgress');
    expect(classes.stdout).toMatch(/mcp__everything__get-sum\s+\[pass\]\s+networkEgress, processSpawn/);
    expect((await cli('mcp', 'disable', 'everything', 'engineer')).stdout).toContain('agents: 0');
    const relisted = await cli('mcp', 'tools', 'everything');
    expect(relisted.code).toBe(0);
    expect(relisted.stdout).toMatch(/mcp__everything__get-sum\s+\[pass\]\s+networkEgress, processSpawn/);
    expect(relisted.stdout).not.toContain('cli-secret-55');
    expect((await cli('mcp', 'remove', 'everything')).stdout).toContain('removed everything');
  }, 240_000);

  it('bad input exits 1 naming the field', async () => {
    const shell = await cli('mcp', 'add', 'bad', '--command', '/bin/sh');
    expect(shell.code).toBe(1);
    expect(shell.stderr).toContain('command');
    expect(shell.stderr).toContain('not a shell or launcher');
    const unknownClass = await cli('mcp', 'classes', 'nothing', 'echo', 'none');
    expect(unknownClass.code).toBe(1);
    expect(unknownClass.stderr).toContain("no MCP server named 'nothing'");
  }, 120_000);
});
