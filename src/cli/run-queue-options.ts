import { InvalidArgumentError, Option, type Command } from 'commander';
import type { ControlCenterOptions } from '../services/control-center.js';
import { DEFAULT_POOL_SIZE } from '../store/open-postgres.js';

/**
 * The run queue's tunings, the same flags (and environment variables) on `worker` and
 * `serve`. They act in processes that execute work on PostgreSQL (a worker, a plain `serve`); an
 * API-role process and the embedded store have no run queue, so there they change nothing — they are
 * accepted anyway, so one environment can be shared by every process of a deployment.
 *
 * Durations are whole seconds, like `--lease-seconds`: a value below the minimum would make the
 * sweep, the steal or the prune race the ordinary path it backs up (an enqueue, a claim poll, a
 * heartbeat), so it is refused, naming the flag (or the environment variable it came from).
 */
interface SecondsTuning {
  flag: string;
  env: string;
  option: 'dispatchGraceMs' | 'runStealMs' | 'processPruneMs';
  description: string;
  min: number;
  max: number;
  defaultSeconds: number;
}

const DAY_S = 86_400;

const SECONDS_TUNINGS: readonly SecondsTuning[] = [
  {
    flag: 'dispatch-grace-seconds',
    env: 'CONTROL_CENTER_DISPATCH_GRACE_SECONDS',
    option: 'dispatchGraceMs',
    description: 'how old a queued run\'s unconfirmed dispatch must be before this process\'s sweep enqueues it (its API process died before enqueueing)',
    min: 1,
    max: DAY_S,
    defaultSeconds: 60,
  },
  {
    flag: 'run-steal-seconds',
    env: 'CONTROL_CENTER_RUN_STEAL_SECONDS',
    option: 'runStealMs',
    description: 'how long a queued run may wait on a saturated live process\'s own queue before this process, with room, takes it',
    min: 1,
    max: DAY_S,
    defaultSeconds: 60,
  },
  {
    flag: 'process-prune-seconds',
    env: 'CONTROL_CENTER_PROCESS_PRUNE_SECONDS',
    option: 'processPruneMs',
    description: 'how long past its stale limit a dead process\'s row is kept before it is pruned with its empty runs queues',
    min: 1,
    max: 30 * DAY_S,
    defaultSeconds: 3_600,
  },
];

const MAX_QUEUED_RUNS = { flag: 'max-queued-runs', env: 'CONTROL_CENTER_MAX_QUEUED_RUNS', min: 1, max: 256, default: 16 } as const;
/** NF-SCALE, bursts: accepted turns are started through a bounded queue (run-start-queue.ts). */
const RUN_STARTS = { flag: 'run-starts', env: 'CONTROL_CENTER_RUN_STARTS', min: 1, max: 256 } as const;
/** NF-SCALE, bursts: connections per PostgreSQL pool (open-postgres.ts). */
const DB_POOL_SIZE = { flag: 'db-pool-size', env: 'CONTROL_CENTER_DB_POOL_SIZE', min: 1, max: 200 } as const;

/** A whole number within [min, max], or commander's usage error (it names the flag or the variable). */
function wholeNumberWithin(min: number, max: number, unit: string): (value: string) => number {
  return (value) => {
    const trimmed = value.trim();
    const parsed = /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min || parsed > max) throw new InvalidArgumentError(`must be a whole number of ${unit}, ${min}–${max}`);
    return parsed;
  };
}

/** Adds `--dispatch-grace-seconds`, `--run-steal-seconds`, `--process-prune-seconds`, `--max-queued-runs` and `--run-starts` to a command. */
export function addRunQueueOptions(command: Command): Command {
  for (const tuning of SECONDS_TUNINGS) {
    command.addOption(
      new Option(`--${tuning.flag} <s>`, `${tuning.description} (default ${tuning.defaultSeconds}; PostgreSQL only)`)
        .env(tuning.env)
        .argParser(wholeNumberWithin(tuning.min, tuning.max, 'seconds')),
    );
  }
  command.addOption(
    new Option(`--${MAX_QUEUED_RUNS.flag} <n>`, `how many queued agent runs this process executes at once (default ${MAX_QUEUED_RUNS.default}; PostgreSQL only)`)
      .env(MAX_QUEUED_RUNS.env)
      .argParser(wholeNumberWithin(MAX_QUEUED_RUNS.min, MAX_QUEUED_RUNS.max, 'runs')),
  );
  command.addOption(
    new Option(`--${RUN_STARTS.flag} <n>`, 'how many accepted turns this process starts at once; the others wait, already answered (default two per core)')
      .env(RUN_STARTS.env)
      .argParser(wholeNumberWithin(RUN_STARTS.min, RUN_STARTS.max, 'runs')),
  );
  command.addOption(
    new Option(`--${DB_POOL_SIZE.flag} <n>`, `connections per PostgreSQL pool (one pool per open workspace plus the registry; default ${DEFAULT_POOL_SIZE}; PostgreSQL only)`)
      .env(DB_POOL_SIZE.env)
      .argParser(wholeNumberWithin(DB_POOL_SIZE.min, DB_POOL_SIZE.max, 'connections')),
  );
  return command;
}

/** What commander parsed for those options (camel-cased flag names); unset ones are absent. */
export interface RunQueueFlags {
  dispatchGraceSeconds?: number;
  runStealSeconds?: number;
  processPruneSeconds?: number;
  maxQueuedRuns?: number;
  runStarts?: number;
  dbPoolSize?: number;
}

/** The control center's options for the flags that were given; the rest keep the control center's defaults. */
export function runQueueOptions(flags: RunQueueFlags): Pick<ControlCenterOptions, 'dispatchGraceMs' | 'runStealMs' | 'processPruneMs' | 'maxQueuedRuns' | 'runStartConcurrency' | 'dbPoolSize'> {
  const seconds: Record<SecondsTuning['option'], number | undefined> = {
    dispatchGraceMs: flags.dispatchGraceSeconds,
    runStealMs: flags.runStealSeconds,
    processPruneMs: flags.processPruneSeconds,
  };
  const options: Pick<ControlCenterOptions, 'dispatchGraceMs' | 'runStealMs' | 'processPruneMs' | 'maxQueuedRuns' | 'runStartConcurrency' | 'dbPoolSize'> = {};
  for (const tuning of SECONDS_TUNINGS) {
    const value = seconds[tuning.option];
    if (value !== undefined) options[tuning.option] = value * 1_000;
  }
  if (flags.maxQueuedRuns !== undefined) options.maxQueuedRuns = flags.maxQueuedRuns;
  if (flags.runStarts !== undefined) options.runStartConcurrency = flags.runStarts;
  if (flags.dbPoolSize !== undefined) options.dbPoolSize = flags.dbPoolSize;
  return options;
}
