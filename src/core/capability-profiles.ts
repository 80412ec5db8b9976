import { WORLD_CHANGING_EFFECT_CLASSES, type EffectClass } from './effect-classes.js';
import { MODE_LABELS, type Mode } from './modes.js';
import type { ToolTier } from './tool-descriptor.js';

/** Whether the conversation's worktree may be changed in a mode (CAP-1d). */
export type WorktreeState = 'writable' | 'readOnly';

/** The tool-surface part of a profile (CAP-1a). */
export interface ToolSurfaceSpec {
  /** Highest tier a surfaced tool may have. */
  readonly maxTier: ToolTier;
  /**
   * Names allowed at `write` tier and above; `null` means no list. Read-tier tools are not limited by
   * it (CAP-8).
   */
  readonly allowlist: readonly string[] | null;
  /** Names removed whatever their tier. */
  readonly denylist: readonly string[];
  /** Tools declaring any of these classes are removed. */
  readonly deniedEffects: readonly EffectClass[];
}

/** What a run in this mode must deliver before it ends (HAR-4, PLAN-5, PLAN-6). */
export interface CompletionSpec {
  /** The deliverable in words, for the reminder (`a plan`). */
  readonly deliverable: string;
  /** The honest way out the reminder offers (`no plan needed`, HAR-4). */
  readonly honestExit: string;
  /** An example of when the honest exit applies. */
  readonly honestExitExample: string;
  /** The visible line posted when the run still ends without the verb (PLAN-6). */
  readonly failureLine: string;
}

/**
 * A mode's single capability profile (CAP-1). Every enforcement layer — tool surface, action guard,
 * worktree mount, prompt, completion contract — is a projection of this record (CAP-2), so the layers
 * cannot disagree about what the mode allows.
 */
export interface CapabilityProfile {
  readonly mode: Mode;
  /** User-facing name (MODE-3: chat is "Agent"). */
  readonly label: string;
  /** CAP-1a. */
  readonly surface: ToolSurfaceSpec;
  /** The verb the run must call to deliver (CAP-1b); `null` when the mode has none. */
  readonly outputVerb: string | null;
  /** Deliverable verbs that may legitimately never be called (REV-5). */
  readonly optionalVerbs: readonly string[];
  /** Classes the action guard denies at once (CAP-1c, CAP-4). */
  readonly forbiddenEffects: readonly EffectClass[];
  /** CAP-1d. */
  readonly worktree: WorktreeState;
  /** Tools that survive every filter and are pre-approved (CAP-6). */
  readonly pinnedTools: readonly string[];
  /** Hand-written guidance appended to the generated preamble (CAP-1e). Names no tool (CAP-7). */
  readonly guidance: string;
  /** Completion contract (HAR-4); `null` when the mode has none. */
  readonly completion: CompletionSpec | null;
}

/**
 * `ask_user` is pinned in every mode (CAP-6): it is read level, so every read-only mode keeps it, and it
 * is exempt from the approval wrapper because a prompt before a prompt would fail closed.
 */
export const ASK_USER_TOOL = 'ask_user';

/** The plan-mode output verb (PLAN-1). */
export const SUBMIT_PLAN_TOOL = 'submit_plan';

/**
 * PLAN-9's approval gate for leaving plan mode. It belongs to plan mode only: the other profiles deny it
 * by name so their prompts never mention a way out of a mode they are not in (CAP-7). Declare it read
 * tier (it only opens an approval, like `ask_user` it must not sit behind an approval itself).
 */
export const EXIT_PLAN_MODE_TOOL = 'exit_plan_mode';

/** The orchestrate-mode output verb (ORC-1). */
export const PROPOSE_ORCHESTRATION_TOOL = 'propose_orchestration';

/**
 * Review mode's curated allowlist of review, ticket and comms tools (CAP-3, REV-1). It limits write-tier
 * tools only; read-tier research tools reach review mode without being named (CAP-8).
 */
export const REVIEW_ALLOWLIST: readonly string[] = [
  'add_review_node',
  'confirm_review_node',
  'dismiss_review_node',
  'resolve_review_node',
  'assess_review_axis',
  'finalize_review',
  'create_ticket',
  'update_ticket',
  'comment_ticket',
  'send_message',
  ASK_USER_TOOL,
];

/** Read-only modes forbid exactly the world-changing classes (CAP-4). */
const READ_ONLY_FORBIDDEN: readonly EffectClass[] = WORLD_CHANGING_EFFECT_CLASSES;

/**
 * chat ("Agent"): everything up to execute level, no denied classes, writable worktree, no
 * completion contract (CAP-3).
 */
const CHAT_PROFILE: CapabilityProfile = {
  mode: 'chat',
  label: MODE_LABELS.chat,
  surface: { maxTier: 'execute', allowlist: null, denylist: [EXIT_PLAN_MODE_TOOL], deniedEffects: [] },
  outputVerb: null,
  optionalVerbs: [],
  forbiddenEffects: [],
  worktree: 'writable',
  pinnedTools: [ASK_USER_TOOL],
  guidance: [
    'Work directly on the request: read what you need, make the change, and verify it.',
    'Actions that need an operator decision wait for approval; if one is refused, read the reason and adjust instead of retrying the same action.',
    'When you genuinely need information only the user has, ask them a question rather than guessing.',
  ].join('\n'),
  completion: null,
};

/**
 * review: below execute level, curated allowlist of review, ticket and comms tools, read-only worktree,
 * findings optional so no completion contract (CAP-3, REV-1, REV-5).
 */
const REVIEW_PROFILE: CapabilityProfile = {
  mode: 'review',
  label: MODE_LABELS.review,
  surface: { maxTier: 'write', allowlist: REVIEW_ALLOWLIST, denylist: [EXIT_PLAN_MODE_TOOL], deniedEffects: READ_ONLY_FORBIDDEN },
  outputVerb: null,
  optionalVerbs: ['add_review_node', 'finalize_review'],
  forbiddenEffects: READ_ONLY_FORBIDDEN,
  worktree: 'readOnly',
  pinnedTools: [ASK_USER_TOOL],
  guidance: [
    'You are reviewing a change. Read the diff and the surrounding code; do not try to fix anything yourself.',
    'Record each finding with a type, a priority from P0 (blocks release) to P3 (optional), an honest confidence between 0 and 1, and a file and line anchor when the finding is about specific lines.',
    'Finalize the review with a verdict only when you have looked at everything you meant to; recording nothing is a legitimate outcome for a clean change.',
  ].join('\n'),
  completion: null,
};

/**
 * plan: read and research tools only, write tools removed, read-only worktree, `submit_plan` as the
 * one deliverable with a completion contract (CAP-3, PLAN-1, PLAN-5, PLAN-6).
 */
const PLAN_PROFILE: CapabilityProfile = {
  mode: 'plan',
  label: MODE_LABELS.plan,
  surface: { maxTier: 'read', allowlist: null, denylist: [], deniedEffects: READ_ONLY_FORBIDDEN },
  outputVerb: SUBMIT_PLAN_TOOL,
  optionalVerbs: [],
  forbiddenEffects: READ_ONLY_FORBIDDEN,
  worktree: 'readOnly',
  pinnedTools: [SUBMIT_PLAN_TOOL, ASK_USER_TOOL],
  guidance: [
    'You are planning, not implementing. Read, search and research until you understand what the change involves.',
    'A good plan has a clear goal and small steps, each with a key, a title, a description precise enough for someone else to carry out, and the keys of the steps it depends on.',
    'Keep independent steps independent so they can run in parallel. If a plan is rejected, revise it using the reason given.',
  ].join('\n'),
  completion: {
    deliverable: 'a plan',
    honestExit: 'no plan needed',
    honestExitExample: 'it was a question you have already answered',
    failureLine: 'Ended without submitting a plan (no submit_plan call).',
  },
};

/**
 * orchestrate: the research surface plus `propose_orchestration`, read-only worktree, completion
 * contract on the proposal (CAP-3, ORC-1).
 */
const ORCHESTRATE_PROFILE: CapabilityProfile = {
  mode: 'orchestrate',
  label: MODE_LABELS.orchestrate,
  surface: { maxTier: 'read', allowlist: null, denylist: [EXIT_PLAN_MODE_TOOL], deniedEffects: READ_ONLY_FORBIDDEN },
  outputVerb: PROPOSE_ORCHESTRATION_TOOL,
  optionalVerbs: [],
  forbiddenEffects: READ_ONLY_FORBIDDEN,
  worktree: 'readOnly',
  pinnedTools: [PROPOSE_ORCHESTRATION_TOOL, ASK_USER_TOOL],
  guidance: [
    'You are turning one goal into work for a whole team. Research the goal, then propose the roles it needs, a tree of sub-tickets, a synthesis step that brings the results together, and a budget.',
    'Nothing you propose runs until an operator approves it; you cannot approve your own proposal.',
    'If you need to change a proposal you just made, merge the change into it rather than re-proposing right away.',
  ].join('\n'),
  completion: {
    deliverable: 'an orchestration proposal',
    honestExit: 'no orchestration needed',
    honestExitExample: 'one agent can simply do the work',
    failureLine: 'Ended without proposing an orchestration (no propose_orchestration call).',
  },
};

/** The one declaration per mode (CAP-1, CAP-3). Everything else projects from these records. */
export const CAPABILITY_PROFILES: Readonly<Record<Mode, CapabilityProfile>> = {
  chat: CHAT_PROFILE,
  review: REVIEW_PROFILE,
  plan: PLAN_PROFILE,
  orchestrate: ORCHESTRATE_PROFILE,
};

/** The capability profile of a mode. */
export function getCapabilityProfile(mode: Mode): CapabilityProfile {
  return CAPABILITY_PROFILES[mode];
}

/** Every tool name pinned by some mode (CAP-6). Pinned tools must never change the world. */
export const ALL_PINNED_TOOLS: readonly string[] = [
  ...new Set(Object.values(CAPABILITY_PROFILES).flatMap((profile) => profile.pinnedTools)),
];
