import { isEffectClass, type EffectClass } from './effect-classes.js';

/**
 * How much a tool can do, in increasing order (CAP-1a, CAP-8). The order is what a mode's
 * "max approval level" cuts at: a mode whose surface stops at `write` never shows `execute` tools.
 */
export const TOOL_TIERS = ['read', 'write', 'execute'] as const;

/** One of `read` < `write` < `execute`. */
export type ToolTier = (typeof TOOL_TIERS)[number];

const TIER_RANK: Readonly<Record<ToolTier, number>> = { read: 0, write: 1, execute: 2 };

/** Numeric rank of a tier, for comparisons (`read` 0, `write` 1, `execute` 2). */
export function tierRank(tier: ToolTier): number {
  return TIER_RANK[tier];
}

/** True when `value` is one of the three tiers. */
export function isToolTier(value: unknown): value is ToolTier {
  return typeof value === 'string' && Object.hasOwn(TIER_RANK, value);
}

/**
 * The plain data every tool (built-in or served over MCP) hands the core. The core never sees a
 * tool's implementation: surfaces, guards and prompts are computed from these fields alone (CAP-2).
 */
export interface ToolDescriptor {
  /** Unique name the model calls the tool by (`read_file`, `submit_plan`, …). */
  readonly name: string;
  /** One-line description for humans; never copied into the capability preamble (CAP-7). */
  readonly description: string;
  /** Approval level; a tool above `read` is "mutating". */
  readonly tier: ToolTier;
  /** Effect classes the tool can cause (POL-2). */
  readonly effects: readonly EffectClass[];
  /** True when the tool can change files inside the conversation's worktree (CAP-5). */
  readonly writesWorktree: boolean;
  /**
   * Declares that the tool's only writes are the Control Center's own collaboration records
   * (messages, tickets, comments, review findings, plan and orchestration submissions, questions).
   * Such writes are none of the thirteen world-changing effect classes, which is why review mode can
   * keep its curated ticket and comms tools while denying every world-changing class (CAP-3, CAP-4).
   * It is an explicit declaration, so it satisfies POL-2's "declare something" rule.
   */
  readonly recordsOnly?: boolean;
  /**
   * Classes that depend on what a call asks for (SEC-9): the value of one input field picks them, on top
   * of {@link effects}. `relay_tool`'s `list` changes nothing while its `send` starts another
   * conversation's turn, so one static list would either lie about `list` or about `send`. Surfaces
   * filter on `effects` (what every call does); the policy engine decides each call on both.
   */
  readonly effectsByAction?: EffectsByAction;
  /**
   * The tool can start runs (a subagent, a delegate, another conversation's turn). Every run it starts
   * carries the caller's rules as a ceiling (SEC-9), so starting work elsewhere never loosens a rule.
   */
  readonly startsRuns?: boolean;
  /**
   * The tool asks the operator itself, with a question card, before it acts (RLY-6's ask and plan relay
   * modes). The card stands in for the asks of the mode and the dial; a rule's deny still refuses the
   * call before the card is shown, and a rule's ask is answered by the card.
   */
  readonly asksOperatorFirst?: boolean;
  /** Optional grouping for display (`files`, `git`, `tickets`, …); no policy meaning. */
  readonly group?: string;
  /**
   * The input field holding the URL a call reaches (TOOL-1, `web_fetch`'s `url`): the policy engine
   * decides the call's networkEgress by that URL's host, so domain rules apply to it.
   */
  readonly egressUrlField?: string;
}

/** Per-call effect classes: `field` names the input field, `classes` maps each of its values to classes. */
export interface EffectsByAction {
  readonly field: string;
  readonly classes: Readonly<Record<string, readonly EffectClass[]>>;
}

/**
 * The classes one call of `tool` with `input` can cause: the static ones plus those its action picks
 * (SEC-9). An action the table does not name gets only the static ones — the tool's schema refuses
 * unknown actions before any call reaches the policy engine.
 */
export function callEffects(tool: Pick<ToolDescriptor, 'effects' | 'effectsByAction'>, input: unknown): EffectClass[] {
  if (!tool.effectsByAction) return [...tool.effects];
  const value = input && typeof input === 'object' ? (input as Record<string, unknown>)[tool.effectsByAction.field] : undefined;
  const picked = typeof value === 'string' && Object.hasOwn(tool.effectsByAction.classes, value) ? tool.effectsByAction.classes[value]! : [];
  return [...new Set([...tool.effects, ...picked])];
}

/** True when at least one call of the tool declares an effect class. */
function declaresAnyEffect(tool: ToolDescriptor): boolean {
  return tool.effects.length > 0 || Object.values(tool.effectsByAction?.classes ?? {}).some((classes) => classes.length > 0);
}

/** A tool "mutates" when its tier is above `read`. */
export function isMutatingTool(tool: Pick<ToolDescriptor, 'tier'>): boolean {
  return TIER_RANK[tool.tier] > TIER_RANK.read;
}

const TOOL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}$/;

/**
 * Checks one descriptor and returns every problem found (empty when valid). Encodes POL-2: a mutating
 * tool that declares no effect class, no worktree write and no records-only write is rejected, so an
 * undeclared tool can never slip past rules written against effect classes.
 */
export function validateToolDescriptor(tool: ToolDescriptor): string[] {
  const problems: string[] = [];
  if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
    problems.push(`tool name ${JSON.stringify(tool.name)} is not a valid identifier`);
  }
  const label = typeof tool.name === 'string' ? tool.name : '(unnamed)';
  if (!isToolTier(tool.tier)) problems.push(`${label}: tier ${JSON.stringify(tool.tier)} is not read, write or execute`);
  if (!Array.isArray(tool.effects)) {
    problems.push(`${label}: effects must be an array of effect classes`);
  } else {
    for (const effect of tool.effects) {
      if (!isEffectClass(effect)) problems.push(`${label}: ${JSON.stringify(effect)} is not an effect class (POL-2)`);
    }
    if (new Set(tool.effects).size !== tool.effects.length) problems.push(`${label}: effects list a class twice`);
  }
  for (const [action, classes] of Object.entries(tool.effectsByAction?.classes ?? {})) {
    for (const effect of classes) {
      if (!isEffectClass(effect)) problems.push(`${label}: ${JSON.stringify(effect)} of action ${action} is not an effect class (POL-2)`);
    }
  }
  // Starting a run is more than writing a record: a write-tier tool that does it names its classes.
  // (A read-tier one, `task`, starts children in its own space under its own surface and rules.)
  if (tool.startsRuns === true && tool.tier !== 'read' && !declaresAnyEffect(tool)) {
    problems.push(`${label}: a tool that starts runs must declare the classes of what it starts, not only recordsOnly (SEC-9)`);
  }
  if (typeof tool.writesWorktree !== 'boolean') problems.push(`${label}: writesWorktree must be a boolean`);
  if (
    isToolTier(tool.tier) &&
    isMutatingTool(tool) &&
    Array.isArray(tool.effects) &&
    !declaresAnyEffect(tool) &&
    tool.writesWorktree !== true &&
    tool.recordsOnly !== true
  ) {
    problems.push(
      `${label}: a ${tool.tier}-tier tool must declare an effect class, writesWorktree or recordsOnly (POL-2)`,
    );
  }
  if (tool.recordsOnly === true && tool.writesWorktree === true) {
    problems.push(`${label}: recordsOnly contradicts writesWorktree`);
  }
  return problems;
}
