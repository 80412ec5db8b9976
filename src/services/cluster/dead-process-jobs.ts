import type { PgBossConnection } from '../pipelines/pg-boss-job-queue.js';

/**
 * Failover (SPEC §15): the jobs a process held when the sweep noticed it dead — plan, pipeline and
 * orchestration nodes, queued runs it had claimed, gates' timeouts — go back to their queues at once
 * for the live processes to claim, instead of waiting for each job's own lease to run out. Jobs are
 * held under the process's id (`cc_job_holders`), in every workspace. Returns how many went back.
 */
export async function releaseJobsOf(connection: PgBossConnection, workspaces: ReadonlyArray<{ id: string }>, deaths: ReadonlyArray<{ processId: string }>): Promise<number> {
  let released = 0;
  for (const workspace of workspaces) {
    const queue = connection.queueFor(workspace.id);
    for (const dead of deaths) released += await queue.release(dead.processId);
  }
  return released;
}
