/** BUD-1 from the command line against a real server process: `budgets set | list | alerts | prices | remove` and `costs`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-runner.js';
import { startServeProcess, type ServeProcess } from '../support/serve-process.js';

let server: ServeProcess;
const cli = (...args: string[]) => runCli(server.dataRoot, ...args);

beforeAll(async () => {
  server = await startServeProcess({});
}, 120_000);

afterAll(async () => {
  await server?.stop();
});

describe('control-center budgets and costs (BUD-1)', () => {
  it('sets, lists and removes limits; refuses bad amounts naming the field; prints prices and costs', async () => {
    const set = await cli('budgets', 'set', '12.5', '--period', 'month', '--agent', 'engineer', '--threshold', '90');
    expect(set.stderr).toBe('');
    expect(set.stdout).toMatch(/engineer month limit \$12\.50, spent \$0\.0000/);
    const limitId = set.stdout.split(' ')[0]!;
    const listed = await cli('budgets', 'list');
    expect(listed.stdout).toMatch(new RegExp(`${limitId}\\s+engineer\\s+month .* of \\$12\\.50\\s+alert at 90 %`));

    for (const bad of ['1.23456', 'ten']) {
      const refused = await cli('budgets', 'set', bad, '--period', 'day');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('limitUsd');
    }
    const decided = await cli('budgets', 'decide', 'bud_missing', 'stop');
    expect(decided.code).toBe(1);
    expect(decided.stderr).toContain('alertId');
    expect((await cli('budgets', 'prices')).stdout).toMatch(/prices checked \d{4}-\d{2}/);
    expect((await cli('costs', '--csv')).stdout.split('\r\n')[0]).toBe('day,name,cost_usd,calls,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens');
    expect((await cli('budgets', 'remove', limitId)).stdout).toContain(`removed ${limitId}`);
  }, 420_000);
});
