import type { StoredOrchestrationProposal } from './orchestration-proposal.js';

export interface FieldChange {
  readonly field: string;
  readonly before: unknown;
  readonly after: unknown;
}

export interface KeyedChange {
  readonly key: string;
  readonly changes: FieldChange[];
}

/** What changed from one revision of a proposal to the next (ORC-3: the UI shows it). */
export interface RevisionDiff {
  readonly goal: FieldChange | null;
  readonly roles: { readonly added: string[]; readonly removed: string[]; readonly changed: KeyedChange[] };
  readonly subTickets: { readonly added: string[]; readonly removed: string[]; readonly changed: KeyedChange[] };
  readonly research: FieldChange | null;
  readonly synthesis: FieldChange[];
  readonly budget: FieldChange[];
}

const same = (left: unknown, right: unknown): boolean => canonical(left) === canonical(right);

/** JSON with object keys sorted, so key order never shows up as a change. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

function fieldChanges<T extends object>(before: T, after: T, fields: readonly (keyof T & string)[]): FieldChange[] {
  return fields.filter((field) => !same(before[field], after[field])).map((field) => ({ field, before: before[field] ?? null, after: after[field] ?? null }));
}

function keyed<T extends object>(before: readonly T[], after: readonly T[], keyOf: (item: T) => string, fields: readonly (keyof T & string)[]) {
  const old = new Map(before.map((item) => [keyOf(item), item]));
  const now = new Map(after.map((item) => [keyOf(item), item]));
  return {
    added: [...now.keys()].filter((key) => !old.has(key)),
    removed: [...old.keys()].filter((key) => !now.has(key)),
    changed: [...now.entries()]
      .filter(([key]) => old.has(key))
      .map(([key, item]) => ({ key, changes: fieldChanges(old.get(key)!, item, fields) }))
      .filter((change) => change.changes.length > 0),
  };
}

/** The diff between two revisions, roles and sub-tickets matched by key. Pure and deterministic. */
const NO_SYNTHESIS = { roleKey: '', prompt: '', outputSchema: {} };

export function diffRevisions(before: StoredOrchestrationProposal, after: StoredOrchestrationProposal): RevisionDiff {
  return {
    goal: same(before.goal, after.goal) ? null : { field: 'goal', before: before.goal, after: after.goal },
    roles: keyed(before.roles, after.roles, (role) => role.roleKey, ['title', 'agentId', 'hire']),
    subTickets: keyed(before.subTickets, after.subTickets, (ticket) => ticket.key, ['title', 'roleKey', 'description', 'dependsOn', 'expectedOutput']),
    research: same(before.research, after.research) ? null : { field: 'research', before: before.research ?? null, after: after.research ?? null },
    // A plan's record has no synthesis step (PLAN-7); an absent one compares as empty.
    synthesis: fieldChanges(before.synthesis ?? NO_SYNTHESIS, after.synthesis ?? NO_SYNTHESIS, ['roleKey', 'prompt', 'outputSchema']),
    budget: fieldChanges(before.budget ?? {}, after.budget ?? {}, ['estimatedUsd', 'maxUsd']),
  };
}

/** Whether a diff records no change at all. */
export function isEmptyDiff(diff: RevisionDiff): boolean {
  return (
    diff.goal === null &&
    diff.research === null &&
    diff.synthesis.length === 0 &&
    diff.budget.length === 0 &&
    [diff.roles, diff.subTickets].every((part) => part.added.length === 0 && part.removed.length === 0 && part.changed.length === 0)
  );
}
