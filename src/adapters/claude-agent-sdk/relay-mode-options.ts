import type { RelayMode } from '../../core/relay/relay-mode.js';

/** The SDK's own permission modes this transport uses. */
export type SdkPermissionMode = 'default' | 'plan';

/**
 * RLY-7 for Claude (Agent SDK): plan → the SDK's `plan` permission mode (the host also refuses every
 * write, see `routeSdkTool`); ask and autopilot → sentences appended to the system prompt; agent →
 * nothing. Every other mode runs in `default`, where each gated call reaches the host (`canUseTool`
 * and the PreToolUse hook); the host never uses `bypassPermissions`, which skips `canUseTool`.
 */
export function sdkModeOptions(mode: RelayMode): { permissionMode: SdkPermissionMode; sentences: string } {
  switch (mode) {
    case 'plan':
      return { permissionMode: 'plan', sentences: '' };
    case 'ask':
      return {
        permissionMode: 'default',
        sentences:
          'Relay mode Ask: before you change files, run commands with side effects or contact other systems, ask the user with the AskUserQuestion tool and wait for the answer.',
      };
    case 'autopilot':
      return {
        permissionMode: 'default',
        sentences:
          'Relay mode Autopilot: work through the task without stopping for confirmation. When you really need the user, ask with the AskUserQuestion tool; otherwise keep going until the task is done.',
      };
    case 'agent':
      return { permissionMode: 'default', sentences: '' };
  }
}
