import { existsSync } from 'node:fs';
import { isInside } from '../skills-target.js';
import type { JsonRpcStdio } from './json-rpc-stdio.js';

/*
 * SKL-5 for Codex: the app-server's own skill discovery must offer exactly the scanned set. The
 * scanned skills are materialized by the prepare stage into the run's server-owned skills folder
 * (read-only for the runner) and handed to Codex as its only extra skills root
 * (`skills/extraRoots/set`). Everything else Codex discovers on its own — the checkout's
 * `.agents/skills/` (the agent's, never scanned as such), `$CODEX_HOME/skills/` and `~/.agents/skills/`
 * (writable by earlier turns), bundled system skills, plugin skills — is switched off by path
 * (`skills/config/write {path, enabled: false}`, Codex's `[[skills.config]]` entry), using Codex's
 * own listing so that whatever root a future Codex adds is covered too. The listing is then read
 * again: a skill outside the scanned root that is still enabled fails the turn closed.
 */
/** Codex kept offering a skill outside the scanned set after it was switched off: the turn does not start. */
export class CodexSkillsConfinementError extends Error {}

interface ListedSkill {
  name: string;
  path: string;
  enabled: boolean;
}

async function listSkills(rpc: JsonRpcStdio, cwd: string): Promise<ListedSkill[]> {
  const listed = await rpc.request<{ data?: Array<{ skills?: unknown[]; errors?: unknown[] }> }>('skills/list', { cwds: [cwd], forceReload: true });
  const entries = (listed.data ?? []).flatMap((entry) => entry.skills ?? []);
  return entries.map((raw) => {
    const skill = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    return { name: String(skill.name ?? ''), path: String(skill.path ?? ''), enabled: skill.enabled !== false };
  });
}

/**
 * Confines the app-server's skills for `cwd` to `root` (the run's materialized scanned skills; may
 * not exist when the agent has none). Call before the thread starts and before every turn (a
 * command of an earlier turn may have added a `SKILL.md`). Returns the names Codex offers.
 */
export async function confineCodexSkills(rpc: JsonRpcStdio, input: { cwd: string; root: string }): Promise<string[]> {
  const hasRoot = existsSync(input.root);
  await rpc.request('skills/extraRoots/set', { extraRoots: hasRoot ? [input.root] : [] });
  const foreign = (skills: ListedSkill[]) => skills.filter((skill) => skill.enabled && !(hasRoot && isInside(input.root, skill.path)));
  for (const skill of foreign(await listSkills(rpc, input.cwd))) {
    await rpc.request('skills/config/write', { path: skill.path, enabled: false });
  }
  const after = await listSkills(rpc, input.cwd);
  const left = foreign(after);
  if (left.length > 0) {
    throw new CodexSkillsConfinementError(`Codex still offers skills that were not scanned: ${left.map((skill) => skill.name).join(', ')}`);
  }
  return after.filter((skill) => skill.enabled).map((skill) => skill.name);
}
