import type { LaunchCgroup } from './process-cgroup.js';
import type { HelperCommand, HelperCommandResult, SpawnHelper } from './spawn-helper.js';

/**
 * Runs one launched command through a spawn helper while its cgroup is watched (SEC-11): when the
 * command reaches a limit, the cgroup stops every process of the launch (`stopWhenReached`), and the
 * result says which limit in `limitReached`, so that the agent reads "process limit reached" instead
 * of a bare SIGKILL or a command that spun until its timeout.
 */
export async function runWithinLimits(helper: Pick<SpawnHelper, 'run'>, command: HelperCommand, cgroup: LaunchCgroup | null | undefined): Promise<HelperCommandResult> {
  if (!cgroup) return helper.run(command);
  const unwatch = cgroup.watch(() => undefined);
  try {
    const result = await helper.run(command);
    // One last read: a limit reached between two reads of the watch (or by a command that gave up on its own) is reported too.
    const limitReached = await cgroup.reached();
    return limitReached ? { ...result, limitReached } : result;
  } finally {
    unwatch();
  }
}
