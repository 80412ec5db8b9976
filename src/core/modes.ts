/**
 * The four space modes, exactly these (MODE-1). A space row stores one of them; every conversation in
 * the space shares it.
 */
export const MODES = ['chat', 'review', 'plan', 'orchestrate'] as const;

/** A space mode (MODE-1). */
export type Mode = (typeof MODES)[number];

/**
 * The per-space autonomy dial (POL-5), least to most autonomous. It is a profile over the policy
 * engine, not a second permission system.
 */
export const AUTONOMY_LEVELS = ['proposeOnly', 'askFirst', 'actWithApproval', 'actFreely'] as const;

/** An autonomy level (POL-5). */
export type AutonomyLevel = (typeof AUTONOMY_LEVELS)[number];

/** The dial's default: rules decide and `ask` asks (POL-5). */
export const DEFAULT_AUTONOMY: AutonomyLevel = 'actWithApproval';

/** User-facing mode names. `chat` is shown as "Agent", never "Chat" (MODE-3). */
export const MODE_LABELS: Readonly<Record<Mode, string>> = {
  chat: 'Agent',
  review: 'Review',
  plan: 'Plan',
  orchestrate: 'Orchestrate',
};

/** User-facing names of the autonomy levels. */
export const AUTONOMY_LABELS: Readonly<Record<AutonomyLevel, string>> = {
  proposeOnly: 'Propose only',
  askFirst: 'Ask first',
  actWithApproval: 'Act with approval',
  actFreely: 'Act freely',
};

/** Modes a user may pick; `review` is set only by PR spaces and pipeline steps (MODE-6). */
export const USER_SELECTABLE_MODES: readonly Mode[] = ['chat', 'plan', 'orchestrate'];

const MODE_SET: ReadonlySet<string> = new Set(MODES);
const AUTONOMY_SET: ReadonlySet<string> = new Set(AUTONOMY_LEVELS);

/** True when `value` is exactly one of the four modes (case-sensitive, MODE-1). */
export function isMode(value: unknown): value is Mode {
  return typeof value === 'string' && MODE_SET.has(value);
}

/** True when `value` is exactly one of the four autonomy levels. */
export function isAutonomyLevel(value: unknown): value is AutonomyLevel {
  return typeof value === 'string' && AUTONOMY_SET.has(value);
}
