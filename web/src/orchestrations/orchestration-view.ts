import type { Orchestration } from '@server/schemas/orchestration';

type SubTicket = Orchestration['proposal']['subTickets'][number];

/** Sub-tickets grouped by depth in the dependency tree (roots first), proposal order within a level. */
export function ticketLevels(tickets: readonly SubTicket[]): SubTicket[][] {
  const byKey = new Map(tickets.map((ticket) => [ticket.key, ticket]));
  const depth = new Map<string, number>();
  const visit = (key: string, guard: number): number => {
    const known = depth.get(key);
    if (known !== undefined) return known;
    const ticket = byKey.get(key);
    if (!ticket || guard > tickets.length) return 0;
    const level = ticket.dependsOn.length === 0 ? 0 : 1 + Math.max(...ticket.dependsOn.map((dependency) => visit(dependency, guard + 1)));
    depth.set(key, level);
    return level;
  };
  const levels: SubTicket[][] = [];
  for (const ticket of tickets) (levels[visit(ticket.key, 0)] ??= []).push(ticket);
  return levels.filter(Boolean);
}

/** Ticking a sub-ticket ticks what it depends on; unticking one unticks what depends on it (ORC-2: closed subsets only). */
export function toggleKey(tickets: readonly SubTicket[], selected: ReadonlySet<string>, key: string): Set<string> {
  const next = new Set(selected);
  if (next.has(key)) {
    const stack = [key];
    while (stack.length > 0) {
      const current = stack.pop()!;
      if (!next.delete(current)) continue;
      for (const ticket of tickets) if (ticket.dependsOn.includes(current)) stack.push(ticket.key);
    }
  } else {
    const byKey = new Map(tickets.map((ticket) => [ticket.key, ticket]));
    const stack = [key];
    while (stack.length > 0) {
      const current = stack.pop()!;
      if (next.has(current)) continue;
      next.add(current);
      stack.push(...(byKey.get(current)?.dependsOn ?? []));
    }
  }
  return next;
}

export function formatUsd(value: number): string {
  return `$${value.toFixed(value < 10 ? 2 : 0)}`;
}

/** ORC-2: a band, or "unknown" with its reason — the UI never shows a number the server did not give. */
export function estimateLabel(estimate: Orchestration['estimates'][number]['estimate']): string {
  if (estimate.kind === 'band') return `${formatUsd(estimate.lowUsd)}–${formatUsd(estimate.highUsd)} (median ${formatUsd(estimate.medianUsd)}, ${estimate.runs} runs)`;
  return `unknown — ${estimate.reason}`;
}

export function statusTone(status: Orchestration['status']): 'neutral' | 'info' | 'ok' | 'warn' | 'bad' {
  switch (status) {
    case 'proposed':
      return 'warn';
    case 'approved':
    case 'executing':
    case 'synthesizing':
      return 'info';
    case 'completed':
      return 'ok';
    case 'failed':
      return 'bad';
    default:
      return 'neutral';
  }
}
