/** Default delegation depth cap, a workspace setting (POL-8). */
export const DEFAULT_DELEGATION_DEPTH = 3;

/** Input of the delegation guard. */
export interface DelegationRequest {
  /** Agent ids from the run's originating agent to the agent delegating now, inclusive. */
  readonly chain: readonly string[];
  /** The agent the task would be handed to. */
  readonly target: string;
  /** Maximum number of delegation hops from the originating agent (default 3). */
  readonly maxDepth?: number;
  /** Optional display names for the refusal text; ids are shown when missing. */
  readonly names?: Readonly<Record<string, string>>;
}

/** The guard's answer; `reason` is meant to be returned to the agent verbatim (POL-8). */
export type DelegationVerdict = { readonly allowed: true; readonly depth: number } | { readonly allowed: false; readonly reason: string };

/**
 * POL-8: `delegate_task` is refused past the depth cap or when it would form a cycle (the target is
 * already in the chain, itself included). Depth counts hops: the originating agent delegating once is
 * depth 1, so with the default cap of 3 a chain may be four agents long.
 */
export function checkDelegation(request: DelegationRequest): DelegationVerdict {
  const maxDepth = request.maxDepth ?? DEFAULT_DELEGATION_DEPTH;
  const label = (id: string): string => request.names?.[id] ?? id;
  const path = [...request.chain, request.target].map(label).join(' → ');
  if (request.chain.length === 0) {
    return { allowed: false, reason: 'delegate_task refused: the delegating agent is unknown (empty delegation chain).' };
  }
  const delegator = request.chain[request.chain.length - 1]!;
  if (request.target === delegator) {
    return {
      allowed: false,
      reason: `delegate_task refused: you cannot delegate a task to yourself (${label(delegator)}). Do the work yourself or pick a colleague.`,
    };
  }
  if (request.chain.includes(request.target)) {
    return {
      allowed: false,
      reason: `delegate_task refused: ${label(request.target)} is already in this delegation chain, so handing the task back would form a cycle (${path}). Finish the step yourself or report back to the agent that asked you.`,
    };
  }
  const depth = request.chain.length;
  if (depth > maxDepth) {
    return {
      allowed: false,
      reason: `delegate_task refused: the delegation depth limit is ${maxDepth} and this hand-off would be hop ${depth} (${path}). Do the step yourself or report back to the agent that asked you.`,
    };
  }
  return { allowed: true, depth };
}
