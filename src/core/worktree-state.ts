import type { CapabilityProfile, WorktreeState } from './capability-profiles.js';

/**
 * The worktree state a run's sandbox mounts (CAP-1d, CAP-5, SBX-1): read-only modes get a read-only
 * mount as a second copy of the guarantee the tool surface already gives.
 */
export function worktreeState(profile: CapabilityProfile): WorktreeState {
  return profile.worktree;
}
