import type { Kysely, Selectable } from 'kysely';
import type { RunTreeNode } from '../../schemas/run.js';
import type { RunTable, WorkspaceSchema } from '../../store/workspace-schema.js';
import { toRun } from './run-service.js';

/** Child runs are capped by the delegation depth; this bounds the walk even if the data were cyclic. */
const MAX_LEVELS = 64;

/**
 * Loads `seeds` and every run below them by `parent_run_id` (a child made before children carried
 * their conversation's id has none, so the walk follows parents rather than the conversation).
 */
async function withDescendants(db: Kysely<WorkspaceSchema>, seeds: Selectable<RunTable>[]): Promise<Map<string, Selectable<RunTable>>> {
  const rows = new Map(seeds.map((row) => [row.id, row]));
  let frontier = seeds.map((row) => row.id);
  for (let level = 0; frontier.length > 0 && level < MAX_LEVELS; level += 1) {
    const children = await db.selectFrom('runs').selectAll().where('parent_run_id', 'in', frontier).execute();
    frontier = [];
    for (const child of children) {
      if (rows.has(child.id)) continue;
      rows.set(child.id, child);
      frontier.push(child.id);
    }
  }
  return rows;
}

/** Nests the rows under their parents, oldest first at every level; runs whose parent is not among them are roots. */
async function nest(db: Kysely<WorkspaceSchema>, rows: Map<string, Selectable<RunTable>>): Promise<RunTreeNode[]> {
  const agentIds = [...new Set([...rows.values()].map((row) => row.agent_id))];
  const agents = agentIds.length > 0 ? await db.selectFrom('agents').select(['id', 'name']).where('id', 'in', agentIds).execute() : [];
  const names = new Map(agents.map((agent) => [agent.id, agent.name]));
  const ordered = [...rows.values()].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  const nodes = new Map<string, RunTreeNode>(ordered.map((row) => [row.id, { ...toRun(row), agentName: names.get(row.agent_id) ?? null, children: [] }]));
  const roots: RunTreeNode[] = [];
  for (const row of ordered) {
    const node = nodes.get(row.id)!;
    const parent = row.parent_run_id ? nodes.get(row.parent_run_id) : undefined;
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
  const inConversation = await db.selectFrom('runs').selectAll().where('conversation_id', '=', conversationId).execute();
  const rows = await withDescendants(db, inConversation);
  // A child whose parent is in the tree hangs under it; a turn is a run with no parent at all.
  return (await nest(db, rows)).filter((root) => root.parentRunId === null);
}

/** One run with every run below it, or null when there is no such run. */
export async function runSubtree(db: Kysely<WorkspaceSchema>, runId: string): Promise<RunTreeNode | null> {
  const root = await db.selectFrom('runs').selectAll().where('id', '=', runId).executeTakeFirst();
  if (!root) return null;
  const rows = await withDescendants(db, [root]);
  return (await nest(db, rows)).find((node) => node.id === runId) ?? null;
}
