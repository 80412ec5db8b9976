import type { EffectClass } from '../effect-classes.js';
import type { ShellClassification } from '../shell/classify-command.js';
import type { ToolDescriptor, ToolTier } from '../tool-descriptor.js';
import type { AutonomyLevel, Mode } from '../modes.js';

/** One shell subcommand as the engine needs it (the classifier's `ShellSubcommand` fits). */
export interface ActionSubcommand {
  readonly argv: readonly string[];
  readonly classes: readonly EffectClass[];
  readonly writesWorktree: boolean;
}

/** An action an agent is about to take, as every chokepoint describes it (POL-1). */
export interface PolicyAction {
  readonly classes: readonly EffectClass[];
  readonly writesWorktree: boolean;
  readonly tier: ToolTier;
  /** For shell commands: every subcommand, so command-prefix rules can match each one. */
  readonly commandSubcommands?: readonly ActionSubcommand[];
  readonly toolName?: string;
  /** Set by the chokepoint for a pinned verb (CAP-6); the mode's pinned tools are recognised by name anyway. */
  readonly pinned?: boolean;
  /** {@link fingerprintAction} of the action, so remembered choices can match it. */
  readonly fingerprint?: string;
  /** TOOL-1: the host a network call reaches; domain rules decide its networkEgress facet. */
  readonly domain?: string;
}

/** Where the action happens. The mode is the one the turn started with (MODE-2, RLY-9). */
export interface PolicyContext {
  readonly mode: Mode;
  readonly autonomy: AutonomyLevel;
  readonly workspaceId?: string;
  readonly spaceId?: string;
  readonly agentId?: string;
}

/** The action of calling a tool, from its descriptor alone. */
export function toolAction(tool: ToolDescriptor, fingerprint?: string): PolicyAction {
  return {
    classes: tool.effects,
    writesWorktree: tool.writesWorktree,
    tier: tool.tier,
    toolName: tool.name,
    ...(fingerprint ? { fingerprint } : {}),
  };
}

/** The action of running a classified shell command through a tool (the built-in shell, Claude Code's Bash hook). */
export function shellAction(classification: ShellClassification, toolName = 'bash', tier: ToolTier = 'execute', fingerprint?: string): PolicyAction {
  return {
    classes: classification.classes,
    writesWorktree: classification.writesWorktree,
    tier,
    toolName,
    commandSubcommands: classification.subcommands,
    ...(fingerprint ? { fingerprint } : {}),
  };
}
