import type { OrchestrationSubTicket } from './orchestration-proposal.js';

/**
 * ORC-2: an operator may approve a subset of the sub-tickets, but only one that is closed under
 * dependencies — a chosen sub-ticket whose dependency is left out could never start. Returns, for each
 * chosen key, the dependencies missing from the choice (empty map: closed), plus keys that do not exist.
 */
export function checkDependencyClosed(
  tickets: readonly Pick<OrchestrationSubTicket, 'key' | 'dependsOn'>[],
  chosen: readonly string[],
): { unknown: string[]; missing: Map<string, string[]> } {
  const byKey = new Map(tickets.map((ticket) => [ticket.key, ticket]));
  const selected = new Set(chosen);
  const unknown = chosen.filter((key) => !byKey.has(key));
  const missing = new Map<string, string[]>();
  for (const key of selected) {
    const ticket = byKey.get(key);
    if (!ticket) continue;
    const absent = ticket.dependsOn.filter((dependency) => !selected.has(dependency));
    if (absent.length > 0) missing.set(key, absent);
  }
  return { unknown, missing };
}

/** The smallest dependency-closed set containing `keys` (what the UI preselects when one is ticked). */
export function dependencyClosure(tickets: readonly Pick<OrchestrationSubTicket, 'key' | 'dependsOn'>[], keys: readonly string[]): string[] {
  const byKey = new Map(tickets.map((ticket) => [ticket.key, ticket]));
  const closed = new Set<string>();
  const stack = [...keys];
  while (stack.length > 0) {
    const key = stack.pop()!;
    if (closed.has(key) || !byKey.has(key)) continue;
    closed.add(key);
    stack.push(...byKey.get(key)!.dependsOn);
  }
  return tickets.map((ticket) => ticket.key).filter((key) => closed.has(key));
}
