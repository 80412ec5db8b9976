import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addRunQueueOptions, runQueueOptions, type RunQueueFlags } from '../../src/cli/run-queue-options.js';

/** Parses `args` with the run-queue options on a throw-away command; a usage error comes back as its message. */
function parse(args: string[], env: Record<string, string> = {}): RunQueueFlags | string {
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const command = addRunQueueOptions(new Command('worker').exitOverride().configureOutput({ writeErr: () => undefined }));
    command.parse(args, { from: 'user' });
    return command.opts<RunQueueFlags>();
  } catch (error) {
    return (error as Error).message;
  } finally {
    for (const key of Object.keys(env)) if (!(key in saved)) delete process.env[key];
  }
}

/** NF-SCALE: the run queue's tunings as flags — ranges, sources and what reaches the control center. */
describe('run-queue options (NF-SCALE)', () => {
  it('turns given seconds into the control center\'s milliseconds and leaves unset ones to its defaults', () => {
    const flags = parse(['--dispatch-grace-seconds', '2', '--run-steal-seconds', '90', '--process-prune-seconds', '600', '--max-queued-runs', '4', '--run-starts', '3']);
    expect(runQueueOptions(flags as RunQueueFlags)).toEqual({ dispatchGraceMs: 2_000, runStealMs: 90_000, processPruneMs: 600_000, maxQueuedRuns: 4, runStartConcurrency: 3 });
    expect(runQueueOptions(parse([]) as RunQueueFlags)).toEqual({});
  });

  it('takes a value from its CONTROL_CENTER_* variable, and the flag wins over the variable', () => {
    expect(runQueueOptions(parse([], { CONTROL_CENTER_RUN_STEAL_SECONDS: '5', CONTROL_CENTER_MAX_QUEUED_RUNS: '2' }) as RunQueueFlags)).toEqual({ runStealMs: 5_000, maxQueuedRuns: 2 });
    expect(runQueueOptions(parse(['--run-steal-seconds', '7'], { CONTROL_CENTER_RUN_STEAL_SECONDS: '5' }) as RunQueueFlags)).toEqual({ runStealMs: 7_000 });
    expect(runQueueOptions(parse([], { CONTROL_CENTER_RUN_STARTS: '6' }) as RunQueueFlags)).toEqual({ runStartConcurrency: 6 });
    // The pool size goes to the store location (main.ts), not to the control center's options.
    expect((parse([], { CONTROL_CENTER_DB_POOL_SIZE: '24' }) as RunQueueFlags).dbPoolSize).toBe(24);
    expect((parse(['--db-pool-size', '12'], { CONTROL_CENTER_DB_POOL_SIZE: '24' }) as RunQueueFlags).dbPoolSize).toBe(12);
  });

  it('refuses anything but a whole number within range, naming the flag or the variable', () => {
    const refusals: [string[], Record<string, string>, string][] = [
      [['--dispatch-grace-seconds', '0'], {}, "'--dispatch-grace-seconds <s>' argument '0' is invalid. must be a whole number of seconds, 1–86400"],
      [['--dispatch-grace-seconds', '86401'], {}, "argument '86401' is invalid"],
      [['--run-steal-seconds', '1.5'], {}, "'--run-steal-seconds <s>' argument '1.5' is invalid"],
      [['--run-steal-seconds', '1e3'], {}, "argument '1e3' is invalid"],
      [['--process-prune-seconds', '2592001'], {}, "'--process-prune-seconds <s>' argument '2592001' is invalid. must be a whole number of seconds, 1–2592000"],
      [['--max-queued-runs', '0'], {}, "'--max-queued-runs <n>' argument '0' is invalid. must be a whole number of runs, 1–256"],
      [['--max-queued-runs', '257'], {}, "argument '257' is invalid"],
      [['--max-queued-runs', '-1'], {}, "argument '-1' is invalid"],
      [['--run-starts', '0'], {}, "'--run-starts <n>' argument '0' is invalid. must be a whole number of runs, 1–256"],
      [['--db-pool-size', '0'], {}, "'--db-pool-size <n>' argument '0' is invalid. must be a whole number of connections, 1–200"],
      [[], { CONTROL_CENTER_DB_POOL_SIZE: 'many' }, "value 'many' from env 'CONTROL_CENTER_DB_POOL_SIZE' is invalid"],
      [[], { CONTROL_CENTER_RUN_STARTS: 'all' }, "value 'all' from env 'CONTROL_CENTER_RUN_STARTS' is invalid"],
      [[], { CONTROL_CENTER_PROCESS_PRUNE_SECONDS: '' }, "value '' from env 'CONTROL_CENTER_PROCESS_PRUNE_SECONDS' is invalid"],
      [[], { CONTROL_CENTER_DISPATCH_GRACE_SECONDS: ' 0x10' }, "from env 'CONTROL_CENTER_DISPATCH_GRACE_SECONDS' is invalid"],
    ];
    for (const [args, env, message] of refusals) expect(parse(args, env), `${args.join(' ')} ${JSON.stringify(env)}`).toContain(message);
  });
});
