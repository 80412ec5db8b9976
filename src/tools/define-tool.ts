import type { z } from 'zod';
import type { Decision } from '../core/decisions.js';
import type { EffectClass } from '../core/effect-classes.js';
import type { EffectsByAction, ToolDescriptor, ToolTier } from '../core/tool-descriptor.js';
import type { WorktreeOperations } from '../worktree/worktree-operations.js';

/** What a tool gives back to the model. Failures are data (`isError`), never exceptions (convention 5). */
export interface ToolResult {
  content: string;
  isError: boolean;
  /** Structured detail for run logs and the UI (never sent to the model). */
  details?: Record<string, unknown>;
}

/** One question of `ask_user` (PLAN-4): options to choose from, or free text when none are given. */
export interface UserQuestion {
  question: string;
  options?: string[];
}

/** TOOL-1: the policy's answer for reaching one URL's host (domain rules, the mode, the dial, inherited ceilings). */
export interface EgressVerdict {
  decision: Decision;
  /** A rule naming this exact host allows or asks: only then may a loopback or private address be reached. */
  hostNamedByRule: boolean;
  explanation: string;
}

/** Everything a tool may touch, injected by the harness so tests and sandboxes can swap it. */
export interface ToolContext {
  /** The conversation's worktree; every path goes through it and is refused if it escapes (HAR-7). */
  worktree: WorktreeOperations;
  /** Aborted when the run is cancelled or the call times out. */
  signal: AbortSignal;
  /** The run this call belongs to. */
  runId: string;
  /** Per-run scratch state shared between tools (for example the todo list). */
  runState: Map<string, unknown>;
  /** Asks the operator questions and waits for answers (PLAN-4); absent for one-shot runs. */
  askUser?: (questions: UserQuestion[], signal: AbortSignal) => Promise<string[]>;
  /** Starts a child run for the `task` tool (HAR-5); absent where subagents are not allowed. */
  runSubagent?: (request: { description: string; prompt: string; agent?: string }, signal: AbortSignal) => Promise<ToolResult>;
  /**
   * TOOL-1: decides reaching a URL without asking anyone. `web_fetch` asks it for the URL the gate
   * already decided (to learn whether a rule names the host) and again for every redirect hop.
   * Absent, no host counts as named and a redirect to another host is refused.
   */
  decideEgress?: (url: string) => Promise<EgressVerdict>;
}

/** A tool: its plain-data descriptor for the core, its input schema, and how it runs. */
export interface Tool<Input = unknown> extends ToolDescriptor {
  /** zod schema of the input; also produces the JSON schema the model sees. */
  readonly parameters: z.ZodType<Input>;
  execute(input: Input, context: ToolContext): Promise<ToolResult>;
}

export interface ToolDefinition<Schema extends z.ZodType> {
  name: string;
  description: string;
  parameters: Schema;
  tier: ToolTier;
  effects: EffectClass[];
  writesWorktree?: boolean;
  recordsOnly?: boolean;
  effectsByAction?: EffectsByAction;
  startsRuns?: boolean;
  asksOperatorFirst?: boolean;
  group?: string;
  egressUrlField?: string;
  execute(input: z.output<Schema>, context: ToolContext): Promise<ToolResult>;
}

/** Declares a tool (ARCHITECTURE convention 4): schema, tier, effect classes and execute in one place. */
export function defineTool<Schema extends z.ZodType>(definition: ToolDefinition<Schema>): Tool<z.output<Schema>> {
  return {
    name: definition.name,
    description: definition.description,
    parameters: definition.parameters as unknown as z.ZodType<z.output<Schema>>,
    tier: definition.tier,
    effects: definition.effects,
    writesWorktree: definition.writesWorktree ?? false,
    ...(definition.recordsOnly ? { recordsOnly: true } : {}),
    ...(definition.effectsByAction ? { effectsByAction: definition.effectsByAction } : {}),
    ...(definition.startsRuns ? { startsRuns: true } : {}),
    ...(definition.asksOperatorFirst ? { asksOperatorFirst: true } : {}),
    ...(definition.group ? { group: definition.group } : {}),
    ...(definition.egressUrlField ? { egressUrlField: definition.egressUrlField } : {}),
    execute: definition.execute,
  };
}

/** Shorthand for a successful result. */
export function ok(content: string, details?: Record<string, unknown>): ToolResult {
  return details ? { content, isError: false, details } : { content, isError: false };
}

/** Shorthand for a failed result the model reads. */
export function fail(content: string, details?: Record<string, unknown>): ToolResult {
  return details ? { content, isError: true, details } : { content, isError: true };
}
