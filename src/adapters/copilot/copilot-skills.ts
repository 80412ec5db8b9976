import { existsSync } from 'node:fs';
import type { CopilotSession } from '@github/copilot-sdk';
import { isInside } from '../skills-target.js';

/*
 * SKL-5 for Copilot: the runtime's own skill loading must offer exactly the scanned set. The scanned
 * skills are materialized by the prepare stage into the run's server-owned skills folder (read-only
 * for the runner) and given to the session as its only `skillDirectories`. Everything else the
 * runtime loads on its own — built-in skills, personal ones under `COPILOT_HOME` (the runner's
 * session folder, writable by earlier turns), project ones in the checkout — is disabled for the
 * session, using the session's own listing so that a source a later runtime adds is covered too.
 * The runtime disables by name: a checkout skill that takes the name of a scanned one disables both
 * (the scanned set shrinks; nothing unscanned is offered). The listing is then read again: anything
 * outside the scanned folder still enabled fails the run closed.
 */

/** Copilot kept offering a skill outside the scanned set after it was disabled: the turn does not start. */
export class CopilotSkillsConfinementError extends Error {}

/**
 * Confines the session's skills to `root` (the run's materialized scanned skills; may not exist when
 * the agent has none). Call after the session is created or resumed, and before every message.
 * Returns the names the session offers.
 */
export async function confineCopilotSkills(session: CopilotSession, root: string): Promise<string[]> {
  const hasRoot = existsSync(root);
  await session.rpc.skills.reload();
  const foreign = (skills: Array<{ name: string; enabled: boolean; path?: string }>) => skills.filter((skill) => skill.enabled && !(hasRoot && skill.path && isInside(root, skill.path)));
  for (const skill of foreign((await session.rpc.skills.list()).skills)) await session.rpc.skills.disable({ name: skill.name });
  const after = (await session.rpc.skills.list()).skills;
  const left = foreign(after);
  if (left.length > 0) throw new CopilotSkillsConfinementError(`Copilot still offers skills that were not scanned: ${left.map((skill) => skill.name).join(', ')}`);
  return after.filter((skill) => skill.enabled).map((skill) => skill.name);
}
