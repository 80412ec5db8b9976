import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { TransportRunContext } from '../../adapters/agent-transport.js';
import { safeSegment } from '../../adapters/runner-setup.js';
import type { SkillsTarget } from '../../adapters/skills-target.js';
import type { SkillFolderEntry } from '../../core/skills/scan/scan-types.js';
import { skillNameProblem } from '../../core/skills/skill-frontmatter.js';
import type { PrepareHook } from '../runs/prepare-run.js';
import { renderRepoSkillsIndex, type RepoSkill, type RepoSkills } from './repo-skills.js';
import type { SkillService } from './skill-service.js';
import { materializeWorktreeSkills, type ScannedSkill } from './materialize-worktree-skills.js';

/** The plugin name Claude Code shows the materialized skills under (`control-center-skills:<name>`). */
export const SKILLS_PLUGIN_NAME = 'control-center-skills';

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
 * SKL-5: the scanned set a runner's own skill discovery gets — the agent's linked *installed* skills
 * that still hash to their lock entry (entries read back from the installed folder), then the active
 * repository's scanned repo skills (the content that was scanned, from memory, not re-read from the
 * agent's checkout). Drifted, missing and built-in (unscanned) skills are left out; an installed
 * skill wins over a repo skill of the same name.
 */
export async function scannedSkillSet(
  skills: SkillService,
  context: Pick<TransportRunContext, 'workspaceId' | 'agent'>,
  repoSkills: readonly RepoSkill[] = [],
): Promise<ScannedSkill[]> {
  const set: ScannedSkill[] = [];
  for (const name of [...new Set(context.agent.skills.map((skill) => skill.toLowerCase()))]) {
    const entries = await skills.scannedFolder(context.workspaceId, name);
    if (entries) set.push({ name, entries });
  }
  for (const skill of repoSkills) {
    if (!set.some((known) => known.name === skill.name)) set.push({ name: skill.name, entries: skill.entries });
  }
  // Every name becomes a folder name where it is written: one that is not a plain skill name (`..`,
  // `/`) is never part of the set, whatever let it through upstream (SEC-4).
  return set.filter((skill) => skillNameProblem(skill.name) === null);
}

/**
 * SKL-5 for the runners with their own skill discovery: before the runner starts, the
 * {@link scannedSkillSet} is written into the run's server-owned skills folder ({@link SkillsTarget}:
 * a Claude Code plugin for `claude --plugin-dir` and the Agent SDK's `plugins`, or bare skill
 * folders), which the runner reads read-only. Returns the names written.
 */
export async function materializeSkills(
  skills: SkillService,
  context: Pick<TransportRunContext, 'workspaceId' | 'agent'>,
  target: SkillsTarget,
  repoSkills: readonly RepoSkill[] = [],
): Promise<string[]> {
  const skillsRoot = target.layout === 'claudePlugin' ? join(target.dir, 'skills') : target.dir;
  const written: string[] = [];
  for (const skill of await scannedSkillSet(skills, context, repoSkills)) {
    await writeEntries(join(skillsRoot, skill.name), skill.entries);
    written.push(skill.name);
  }
  if (written.length > 0 && target.layout === 'claudePlugin') {
    await mkdir(join(target.dir, '.claude-plugin'), { recursive: true, mode: 0o700 });
    const manifest = { name: SKILLS_PLUGIN_NAME, version: '1.0.0', description: 'Skills scanned by the Control Center (installed ones pinned in skills-lock.json, and the active repository\'s).' };
    await writeFile(join(target.dir, '.claude-plugin', 'plugin.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  }
  return written;
}

/** The server-owned record of the skills written into a conversation's checkout for a runner (outside the checkout). */
export function worktreeSkillsRecordPath(workspaceDir: string, runner: string, checkoutKey: string): string {
  return join(workspaceDir, runner, 'checkouts', safeSegment(checkoutKey), 'materialized-skills.json');
}

/**
 * The skills work of the prepare stage (SKL-4, SKL-5, HAR-1), one hook for every runner: the space's
 * linked repositories are checked out under `repos/<name>/`, their repo skills scanned, the active
 * repository's index handed to the prompt, and — for a runner whose discovery reads folders (its
 * transport names a `skillsTarget`) — the scanned set materialized there before the runner starts.
 */
export function skillsPrepareHook(skills: SkillService, repoSkills: RepoSkills, log: (message: string) => void = () => undefined): PrepareHook {
  return async (context) => {
    const { scope } = context;
    let active: RepoSkill[] = [];
    let repoSkillsIndex: string | undefined;
    if (scope.spaceId) {
      // Read once for both steps: the space and its links do not change between them.
      const repositories = await repoSkills.repositories(scope.workspaceId, scope.spaceId, context.configPin);
      await repoSkills.ensureCheckouts(scope.workspaceId, scope.spaceId, context.checkoutKey, context.worktreePath, repositories);
      // The checkout key is the conversation's id (a child run shares its parent's): its write history picks the active repository.
      const found = await repoSkills.forConversation(scope.workspaceId, { spaceId: scope.spaceId, conversationId: context.checkoutKey, worktreePath: context.worktreePath }, repositories);
      active = found.repositories.find((repo) => repo.name === found.activeRepository)?.skills ?? [];
      repoSkillsIndex = renderRepoSkillsIndex(found);
    }
    const target = context.transport.skillsTarget?.({ workspaceDir: context.workspaceDir, runId: scope.runId });
    if (target) await materializeSkills(skills, scope, target, active);
    const folders = context.transport.worktreeSkillsFolders;
    // A child run shares its parent's checkout while the parent's agent may still be working in it:
    // the checkout is not rewritten under a live agent (which could swap a folder for a link mid-write).
    if (folders && folders.length > 0 && !context.isChildRun) {
      const outcome = await materializeWorktreeSkills({
        worktreePath: context.worktreePath,
        folders,
        skills: await scannedSkillSet(skills, scope, active),
        recordPath: worktreeSkillsRecordPath(context.workspaceDir, context.transport.id, context.checkoutKey),
      });
      // A refusal leaves that skill out (nothing unscanned is added); the operator sees why in the server log.
      for (const refused of outcome.refused) log(`skills: not materialized at ${refused.path}: ${refused.reason}`);
    }
    const listed = await skills.promptSkills(scope.workspaceId, scope.agent.skills, context.configPin);
    return { skills: listed, ...(repoSkillsIndex ? { repoSkillsIndex } : {}) };
  };
}
