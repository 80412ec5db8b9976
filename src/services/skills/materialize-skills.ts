import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { TransportRunContext } from '../../adapters/agent-transport.js';
import { claudeSkillsPluginDir } from '../../adapters/claude-code/claude-code-transport.js';
import type { SkillFolderEntry } from '../../core/skills/scan/scan-types.js';
import type { PrepareHook } from '../runs/prepare-run.js';
import { renderRepoSkillsIndex, type RepoSkill, type RepoSkills } from './repo-skills.js';
import type { SkillService } from './skill-service.js';

/** The plugin name Claude Code shows the materialized skills under (`control-center-skills:<name>`). */
export const SKILLS_PLUGIN_NAME = 'control-center-skills';

/** The transport whose native skill discovery is fed through a server-owned plugin folder. */
const CLAUDE_CODE_TRANSPORT_ID = 'claude-code';

async function writeEntries(target: string, entries: readonly SkillFolderEntry[]): Promise<void> {
  for (const entry of entries) {
    // Links are not copied: the scanned folder's files are what the runner gets.
    if (entry.kind !== 'file') continue;
    const path = join(target, ...entry.path.split('/'));
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(path, entry.content!, { mode: 0o600 });
  }
}

/**
 * SKL-5 for Claude Code: before the runner starts, the agent's linked *installed* skills — exactly
 * the folders that passed the scan and still hash to their lock entry — and the active repository's
 * scanned repo skills (the content that was scanned, from memory, not re-read from the agent's
 * checkout) are written as a plugin into the run's server-owned folder, which the transport hands to
 * `claude --plugin-dir` and mounts read-only. Drifted, missing, quarantined and built-in (unscanned)
 * skills are left out; an installed skill wins over a repo skill of the same name. Returns the names written.
 */
export async function materializeSkills(
  skills: SkillService,
  context: Pick<TransportRunContext, 'workspaceId' | 'agent' | 'workspaceDir' | 'runId'>,
  repoSkills: readonly RepoSkill[] = [],
): Promise<string[]> {
  const pluginDir = claudeSkillsPluginDir(context.workspaceDir, context.runId);
  const written: string[] = [];
  for (const name of [...new Set(context.agent.skills.map((skill) => skill.toLowerCase()))]) {
    const entries = await skills.scannedFolder(context.workspaceId, name);
    if (!entries) continue;
    await writeEntries(join(pluginDir, 'skills', name), entries);
    written.push(name);
  }
  for (const skill of repoSkills) {
    if (written.includes(skill.name)) continue;
    await writeEntries(join(pluginDir, 'skills', skill.name), skill.entries);
    written.push(skill.name);
  }
  if (written.length > 0) {
    await mkdir(join(pluginDir, '.claude-plugin'), { recursive: true, mode: 0o700 });
    const manifest = { name: SKILLS_PLUGIN_NAME, version: '1.0.0', description: 'Skills scanned by the Control Center (installed ones pinned in skills-lock.json, and the active repository\'s).' };
    await writeFile(join(pluginDir, '.claude-plugin', 'plugin.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  }
  return written;
}

/**
 * The skills work of the prepare stage (SKL-4, SKL-5, HAR-1), one hook for every runner: the space's
 * linked repositories are checked out under `repos/<name>/`, their repo skills scanned, the active
 * repository's index handed to the prompt, and — for Claude Code, whose discovery reads folders —
 * the scanned set materialized into the run's plugin folder before the runner starts.
 */
export function skillsPrepareHook(skills: SkillService, repoSkills: RepoSkills): PrepareHook {
  return async (context) => {
    const { scope } = context;
    let active: RepoSkill[] = [];
    let repoSkillsIndex: string | undefined;
    if (scope.spaceId) {
      await repoSkills.ensureCheckouts(scope.workspaceId, scope.spaceId, context.checkoutKey, context.worktreePath);
      // The checkout key is the conversation's id (a child run shares its parent's): its write history picks the active repository.
      const found = await repoSkills.forConversation(scope.workspaceId, { spaceId: scope.spaceId, conversationId: context.checkoutKey, worktreePath: context.worktreePath });
      active = found.repositories.find((repo) => repo.name === found.activeRepository)?.skills ?? [];
      repoSkillsIndex = renderRepoSkillsIndex(found);
    }
    if (context.transport.id === CLAUDE_CODE_TRANSPORT_ID) await materializeSkills(skills, { ...scope, workspaceDir: context.workspaceDir }, active);
    return repoSkillsIndex ? { repoSkillsIndex } : {};
  };
}
