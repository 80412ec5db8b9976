/** TOOL-2 from the command line: `mcp add | list | tools | classes | enable | disable | remove` against a real server process and server-everything. */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-runner.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';

const everything = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

let server: ServeProcess;
const cli = (...args: string[]) => runCli(server.dataRoot, ...args);

beforeAll(async () => {
  server = await startServeProcess({});
}, 120_000);

afterAll(async () => {
  await server?.stop();
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
