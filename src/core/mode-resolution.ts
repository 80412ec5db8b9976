import { isMode, type Mode } from './modes.js';

/** The part of a space row mode resolution reads. */
export interface SpaceModeRecord {
  readonly mode: Mode;
  /** The workspace the row belongs to, when the caller knows it. */
  readonly workspaceId?: string;
}

/**
 * MODE-2: the mode a dispatch runs in. No space (a one-shot run, a CLI call) or a space absent from this
 * workspace (an id from another workspace finds no row in this workspace's file) resolves to `chat`.
 * Pass `currentWorkspaceId` when the record might come from elsewhere: a record of another workspace
 * counts as absent.
 */
export function resolveDispatchMode(space: SpaceModeRecord | null | undefined, currentWorkspaceId?: string): Mode {
  if (!space) return 'chat';
  if (currentWorkspaceId !== undefined && space.workspaceId !== undefined && space.workspaceId !== currentWorkspaceId) {
    return 'chat';
  }
  return space.mode;
}

/** Pipeline node bodies that open a space, with the mode the room gets when nothing pins it (MODE-5). */
export const SPACE_OPENING_NODE_DEFAULTS: Readonly<Record<string, Mode>> = {
  'messaging.createSpace': 'review',
};

/** The modes a pipeline node may pin (MODE-5); orchestrate is not among them. */
export const PINNABLE_NODE_MODES: readonly Mode[] = ['chat', 'review', 'plan'];

/**
 * MODE-5: the mode of the room a pipeline node opens. `extras['mode']` pins it when key and value match
 * exactly (an own property named `mode` whose value is `chat`, `review` or `plan`, case-sensitive); any
 * other spelling — `orchestrate`, `conversationMode`, `dispatchMode`, `Plan`, … — is silently ignored and
 * the body's default applies (`review` for `messaging.createSpace`). A node that does not open a room
 * (`promptAgent` joins one it did not create) never reconfigures it: `null`, no override.
 */
export function resolvePipelineNodeMode(extras: Readonly<Record<string, unknown>> | null | undefined, nodeBody: string): Mode | null {
  if (!Object.hasOwn(SPACE_OPENING_NODE_DEFAULTS, nodeBody)) return null;
  const pinned = extras && Object.hasOwn(extras, 'mode') ? extras['mode'] : undefined;
  if (isMode(pinned) && PINNABLE_NODE_MODES.includes(pinned)) return pinned;
  return SPACE_OPENING_NODE_DEFAULTS[nodeBody]!;
}
