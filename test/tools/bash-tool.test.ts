import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BASH_EFFECTS, BASH_MAX_OUTPUT_BYTES, bashTool } from '../../src/tools/bash-tool.js';
import { EFFECT_CLASSES } from '../../src/core/effect-classes.js';
import { makeContext, makeTempDir } from '../support/tool-test-support.js';

let dir: { path: string; cleanup: () => Promise<void> };

beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await dir.cleanup();
});

describe('bash tool', () => {
  it('declares execute tier, writesWorktree and every effect class a shell can reach', () => {
    expect(bashTool.tier).toBe('execute');
    expect(bashTool.writesWorktree).toBe(true);
    expect([...bashTool.effects].sort()).toEqual([...EFFECT_CLASSES].sort());
    expect(BASH_EFFECTS).toContain('processSpawn');
  });

  it('runs in the worktree and returns exit code and output', async () => {
    const result = await bashTool.execute({ command: 'pwd && echo made > out.txt && echo warn >&2' }, makeContext(dir.path));
    expect(result.isError).toBe(false);
    expect(result.content).toBe(`exit code: 0\nstdout:\n${dir.path}\n\nstderr:\nwarn\n`);
    expect(result.details).toMatchObject({ exitCode: 0, stdout: `${dir.path}\n`, stderr: 'warn\n', timedOut: false });
    expect(await readFile(join(dir.path, 'out.txt'), 'utf8')).toBe('made\n');
  });

  it('makes a non-zero exit an isError result', async () => {
    const result = await bashTool.execute({ command: 'echo nope; exit 7' }, makeContext(dir.path));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^exit code: 7\nstdout:\nnope/);
  });

  it('times out and says so', async () => {
    const started = Date.now();
    const result = await bashTool.execute({ command: 'sleep 100', timeoutSeconds: 0.3 }, makeContext(dir.path));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/Timed out after 0.3 s/);
  });

  it('is stopped by the run signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await bashTool.execute({ command: 'sleep 100' }, makeContext(dir.path, { signal: controller.signal }));
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/run was cancelled/);
  });

  it('caps the output', async () => {
    const result = await bashTool.execute({ command: `head -c ${BASH_MAX_OUTPUT_BYTES * 2} /dev/zero | tr '\\0' z` }, makeContext(dir.path));
    expect((result.details?.stdout as string).length).toBe(BASH_MAX_OUTPUT_BYTES);
    expect(result.content).toMatch(/output cut at/);
  });
});
