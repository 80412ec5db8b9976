import type { Kysely } from 'kysely';
import type { Run, RunTreeNode } from '../../schemas/run.js';
import { agentNames } from '../../store/repositories/agent-repository.js';
import { childRuns, findRun, runsInConversation } from '../../store/repositories/run-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';

/** Child runs are capped by the delegation depth; this bounds the walk even if the data were cyclic. */
const MAX_LEVELS = 64;

/**
 * Loads `seeds` and every run below them by `parent_run_id` (a child made before children carried
 * their conversation's id has none, so the walk follows parents rather than the conversation).
 */
async function withDescendants(db: Kysely<WorkspaceSchema>, seeds: Run[]): Promise<Map<string, Run>> {
  const runs = new Map(seeds.map((run) => [run.id, run]));
  let frontier = seeds.map((run) => run.id);
  for (let level = 0; frontier.length > 0 && level < MAX_LEVELS; level += 1) {
    const children = await childRuns(db, frontier);
    frontier = [];
    for (const child of children) {
      if (runs.has(child.id)) continue;
      runs.set(child.id, child);
      frontier.push(child.id);
    }
  }
  return runs;
}

/** Nests the runs under their parents, oldest first at every level; runs whose parent is not among them are roots. */
async function nest(db: Kysely<WorkspaceSchema>, runs: Map<string, Run>): Promise<RunTreeNode[]> {
  const names = await agentNames(db, [...new Set([...runs.values()].map((run) => run.agentId))]);
  const ordered = [...runs.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  const nodes = new Map<string, RunTreeNode>(ordered.map((run) => [run.id, { ...run, agentName: names.get(run.agentId) ?? null, children: [] }]));
  const roots: RunTreeNode[] = [];
  for (const run of ordered) {
    const node = nodes.get(run.id)!;
    const parent = run.parentRunId ? nodes.get(run.parentRunId) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/**
 * A conversation's run tree (HAR-5, POL-8): its turns (runs without a parent), oldest first, each
 * with the subagent and delegate runs it started nested below it.
 */
export async function conversationRunTree(db: Kysely<WorkspaceSchema>, conversationId: string): Promise<RunTreeNode[]> {
  const runs = await withDescendants(db, await runsInConversation(db, conversationId));
  // A child whose parent is in the tree hangs under it; a turn is a run with no parent at all.
  return (await nest(db, runs)).filter((root) => root.parentRunId === null);
}

/** One run with every run below it, or null when there is no such run. */
export async function runSubtree(db: Kysely<WorkspaceSchema>, runId: string): Promise<RunTreeNode | null> {
  const root = await findRun(db, runId);
  if (!root) return null;
  const runs = await withDescendants(db, [root]);
  return (await nest(db, runs)).find((node) => node.id === runId) ?? null;
}
