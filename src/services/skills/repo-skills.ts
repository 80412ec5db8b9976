import { readdir } from 'node:fs/promises';
import { basename, join, relative, resolve as resolvePath, sep } from 'node:path';
import { SCAN_RULES_VERSION } from '../../core/skills/scan/rule-catalog.js';
import { scanFingerprint } from '../../core/skills/scan/scan-fingerprint.js';
import { scanSkillFolder, SkillScanError } from '../../core/skills/scan/scan-skill.js';
import type { ScanFinding, ScanReport, SkillFolderEntry } from '../../core/skills/scan/scan-types.js';
import { parseSkillFile } from '../../core/skills/skill-frontmatter.js';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { listSpaceRepositoryLinks } from '../../store/repositories/space-repository-link-repository.js';
import type { SpaceService } from '../spaces/space-service.js';
import { REPOSITORY_LINK_NAME } from '../spaces/space-repositories.js';
import type { CheckoutService } from '../workspaces/checkout-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { readSkillFolder } from './skill-folder-files.js';
import type { SkillService } from './skill-service.js';
import { statOrNull } from '../../worktree/stat-or-null.js';
import type { ConfigPin } from '../../store/pinned-config-reads.js';

/** Where a repository ships skills (SKL-4), in the order a name found twice is taken from. */
export const REPO_SKILL_FOLDERS = ['.agents/skills', '.claude/skills', '.opencode/skills'] as const;

/** File tools whose successful call writes the file its input names: what makes a repository active (SKL-4). */
const WRITE_TOOLS = new Set(['write', 'edit', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/** How many recent successful writes of a conversation are looked at to find its active repository. */
const RECENT_WRITES = 500;

/** How many scan outcomes of repo skills are kept; the oldest is dropped past it. */
const SCAN_CACHE_SIZE = 2_000;

/** A repo skill that passed the scan (pass or warn): what a runner may see. */
export interface RepoSkill {
  repository: string;
  name: string;
  description: string;
  /** The skill folder, relative to the worktree (`repos/<repo>/.claude/skills/<name>`). */
  folder: string;
  verdict: 'pass' | 'warn';
  findings: ScanFinding[];
  entries: SkillFolderEntry[];
}

/** A repo skill no runner sees, and why (the rules it broke, or why it could not be scanned). */
export interface RefusedRepoSkill {
  repository: string;
  folder: string;
  reason: string;
  findings: ScanFinding[];
}

export interface RepositorySkills {
  name: string;
  /** The repository's folder relative to the worktree: '' for the space's own repository, `repos/<name>` for a linked one. */
  root: string;
  skills: RepoSkill[];
  refused: RefusedRepoSkill[];
}

export interface ConversationRepoSkills {
  /** The repository whose skills the agent carries (SKL-4), or null while none is known. */
  activeRepository: string | null;
  repositories: RepositorySkills[];
}

/** The repositories of a space as they appear in a worktree: its own at the root, linked ones under `repos/`. */
interface WorktreeRepository {
  name: string;
  root: string;
}

/** The name the space's own repository goes by in `/skill:<repo>:<name>`: its folder name, made a valid repository name. */
export function primaryRepositoryName(repoPath: string): string {
  const name = basename(repoPath).toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^[-_]+/, '').slice(0, 64);
  return REPOSITORY_LINK_NAME.test(name) ? name : 'repo';
}

/**
 * Whether each segment from `base` down to `base/rest` is a real directory, never a link the agent
 * planted. Synchronous `lstat`s: every run checks the three skill folders of each repository, and
 * most are missing, so the thread pool's round trips (and the errors they reject with) cost more
 * than the calls.
 */
function plainDirectoryChain(base: string, rest: string): boolean {
  let current = base;
  for (const segment of rest.split('/').filter(Boolean)) {
    current = join(current, segment);
    if (!statOrNull(current, 'noFollow')?.isDirectory()) return false;
  }
  return true;
}

/**
 * Repo skills (SKL-4, SKL-5, HAR-1): the skills a space's repositories ship in `.agents/skills/`,
 * `.claude/skills/` or `.opencode/skills/`, read from the conversation's checkout and passed through
 * the same fail-closed scan (and the optional model review) as an install before any runner sees
 * them. A quarantined or unscannable skill is never shown; the listing says why. Links are never
 * followed on the way to a skill folder. The agent carries only the active repository's skills: the
 * only repository when there is one, else the one its latest successful file write landed in.
 */
export class RepoSkills {
  /**
   * Scan outcomes (static scan, then the model review when it is on) by workspace, folder name, rules
   * version, workspace decisions, model-review setting and the folder's {@link scanFingerprint}: the checkout is re-read
   * every run, but content that was already judged under the same rules and policy is not scanned
   * (nor reviewed) again. Scanner errors are not kept: they are re-tried.
   */
  private readonly judged = new Map<string, ScanReport>();

  /** Counters for tests and benches: scans actually run, and outcomes served from {@link judged}. */
  readonly scanStats = { scans: 0, cached: 0 };

  constructor(
    private readonly deps: { workspaces: WorkspaceService; spaces: SpaceService; checkouts: CheckoutService; skills: SkillService },
  ) {}

  /** The space's repositories in a worktree (the own one first); an empty list for a space without any. */
  async repositories(workspaceId: string, spaceId: string, pin?: ConfigPin): Promise<Array<WorktreeRepository & { repoPath: string }>> {
    // A run may name a space that was deleted meanwhile: it has no repositories to show skills from.
    const space = await this.deps.spaces.get(workspaceId, spaceId, pin).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (!space) return [];
    const db = (await this.deps.workspaces.handle(workspaceId)).database.db;
    const linked = await listSpaceRepositoryLinks(db, spaceId, pin);
    const own = space.repoPath ? [{ name: primaryRepositoryName(space.repoPath), root: '', repoPath: space.repoPath }] : [];
    return [...own.filter((repo) => !linked.some((link) => link.name === repo.name)), ...linked.map((link) => ({ name: link.name, root: `repos/${link.name}`, repoPath: link.repoPath }))];
  }

  /**
   * Checks out the linked repositories of the conversation's worktree (made on first use, SKL-4).
   * `known` is the space's {@link repositories} when the caller has just read them (one read per run).
   */
  async ensureCheckouts(workspaceId: string, spaceId: string, checkoutKey: string, worktreePath: string, known?: ReadonlyArray<WorktreeRepository & { repoPath: string }>): Promise<void> {
    const linked = (known ?? (await this.repositories(workspaceId, spaceId))).filter((repo) => repo.root !== '');
    if (linked.length > 0) await this.deps.checkouts.ensureLinked(workspaceId, checkoutKey, worktreePath, linked);
  }

  /**
   * Every repository's scanned skills in a worktree, and the active repository of the conversation.
   * `known` is the space's {@link repositories} when the caller has just read them (one read per run).
   */
  async forConversation(
    workspaceId: string,
    input: { spaceId: string; conversationId: string | null; worktreePath: string },
    known?: ReadonlyArray<WorktreeRepository & { repoPath: string }>,
  ): Promise<ConversationRepoSkills> {
    const repositories = known ?? (await this.repositories(workspaceId, input.spaceId));
    const scanned: RepositorySkills[] = [];
    for (const repo of repositories) scanned.push(await this.scanRepository(workspaceId, input.worktreePath, repo));
    const activeRepository = await this.activeRepository(workspaceId, input.conversationId, input.worktreePath, repositories);
    return { activeRepository, repositories: scanned };
  }

  /**
   * What the operator sees for a conversation (SKL-4/5): each repository's scanned skills and the
   * refused ones with the reason, and the active repository. Makes the checkouts if none exist yet.
   */
  async view(workspaceId: string, conversationId: string): Promise<ConversationRepoSkills> {
    const conversation = await this.deps.spaces.getConversation(workspaceId, conversationId);
    const space = await this.deps.spaces.get(workspaceId, conversation.spaceId);
    const checkout = await this.deps.checkouts.ensure(workspaceId, conversationId, space.repoPath);
    await this.ensureCheckouts(workspaceId, space.id, conversationId, checkout.path);
    const found = await this.forConversation(workspaceId, { spaceId: space.id, conversationId, worktreePath: checkout.path });
    return { ...found, repositories: found.repositories.map((repo) => ({ ...repo, skills: repo.skills.map(({ entries: _entries, ...skill }) => ({ ...skill, entries: [] })) })) };
  }

  /** One repository's skills, each scanned now (the checkout is the agent's: its content is re-judged every time). */
  async scanRepository(workspaceId: string, worktreePath: string, repo: WorktreeRepository): Promise<RepositorySkills> {
    const skills: RepoSkill[] = [];
    const refused: RefusedRepoSkill[] = [];
    // Read when the first skill folder is found: most repositories ship none, and a run scans every
    // time it starts (two queries a turn for nothing).
    let policy: { decisions: Awaited<ReturnType<SkillService['workspaceDecisions']>>; judgedUnder: string } | undefined;
    const judgingPolicy = async () => {
      if (policy) return policy;
      const decisions = await this.deps.skills.workspaceDecisions(workspaceId);
      // What a verdict depends on besides the content: a change of rules, policy or review setting re-judges every skill.
      const judgedUnder = [workspaceId, SCAN_RULES_VERSION, JSON.stringify(decisions), await this.deps.skills.reviewSetting(workspaceId)].join('\0');
      policy = { decisions, judgedUnder };
      return policy;
    };
    for (const folder of REPO_SKILL_FOLDERS) {
      const base = [repo.root, folder].filter(Boolean).join('/');
      if (!plainDirectoryChain(worktreePath, base)) continue;
      const dirents = await readdir(join(worktreePath, ...base.split('/')), { withFileTypes: true }).catch(() => []);
      for (const dirent of dirents.sort((a, b) => (a.name < b.name ? -1 : 1))) {
        if (dirent.name.startsWith('.')) continue;
        const relativeFolder = `${base}/${dirent.name}`;
        if (!dirent.isDirectory()) {
          if (dirent.isSymbolicLink()) refused.push({ repository: repo.name, folder: relativeFolder, reason: 'the skill folder is a symbolic link; links are not followed', findings: [] });
          continue;
        }
        if (skills.some((skill) => skill.name === dirent.name)) {
          refused.push({ repository: repo.name, folder: relativeFolder, reason: `a skill named '${dirent.name}' was already taken from an earlier folder`, findings: [] });
          continue;
        }
        const outcome = await this.scanFolder(workspaceId, join(worktreePath, ...relativeFolder.split('/')), dirent.name, await judgingPolicy());
        if ('reason' in outcome) refused.push({ repository: repo.name, folder: relativeFolder, reason: outcome.reason, findings: outcome.findings });
        else skills.push({ repository: repo.name, name: dirent.name, description: outcome.description, folder: relativeFolder, verdict: outcome.verdict, findings: outcome.findings, entries: outcome.entries });
      }
    }
    return { name: repo.name, root: repo.root, skills, refused };
  }

  /**
   * The body of `/skill:<repo>:<name>` (SKL-4): any linked repository's skill, scanned now. Unknown
   * repositories and skills are a 404 naming `text`; a refused skill is a 400 saying why.
   */
  async loadForTurn(workspaceId: string, input: { spaceId: string; checkoutKey: string; repoPath: string | null; repository: string; name: string }): Promise<{ name: string; description: string; body: string }> {
    const repo = (await this.repositories(workspaceId, input.spaceId)).find((candidate) => candidate.name === input.repository);
    if (!repo) throw new NotFoundError('linked repository', input.repository, 'text');
    const checkout = await this.deps.checkouts.ensure(workspaceId, input.checkoutKey, input.repoPath);
    await this.ensureCheckouts(workspaceId, input.spaceId, input.checkoutKey, checkout.path);
    const scanned = await this.scanRepository(workspaceId, checkout.path, repo);
    const refusal = scanned.refused.find((skill) => skill.folder.split('/').pop() === input.name);
    if (refusal) throw new ValidationError('text', `the repository skill '${input.repository}:${input.name}' is refused: ${refusal.reason}`);
    const skill = scanned.skills.find((candidate) => candidate.name === input.name);
    if (!skill) throw new NotFoundError('repository skill', `${input.repository}:${input.name}`, 'text');
    const text = new TextDecoder().decode(skill.entries.find((entry) => entry.path === 'SKILL.md')!.content);
    const parsed = parseSkillFile(text, skill.name);
    return { name: `${input.repository}:${skill.name}`, description: parsed.frontmatter.description, body: parsed.body };
  }

  /**
   * The active repository (SKL-4): the only one when the space has one (known before the first turn);
   * else the repository holding the path of the conversation's latest successful file write. Reads,
   * listings and searches never count; a denied or failed write does not either.
   */
  async activeRepository(workspaceId: string, conversationId: string | null, worktreePath: string, repositories: readonly WorktreeRepository[]): Promise<string | null> {
    if (repositories.length === 1) return repositories[0]!.name;
    if (repositories.length === 0 || !conversationId) return null;
    const db = (await this.deps.workspaces.handle(workspaceId)).database.db;
    const writes = await db
      .selectFrom('tool_calls')
      .innerJoin('runs', 'runs.id', 'tool_calls.run_id')
      .select(['tool_calls.name', 'tool_calls.input'])
      .where('runs.conversation_id', '=', conversationId)
      .where('tool_calls.name', 'in', [...WRITE_TOOLS])
      .where('tool_calls.is_error', '=', 0)
      .orderBy('tool_calls.started_at', 'desc')
      .limit(RECENT_WRITES)
      .execute();
    const root = resolvePath(worktreePath);
    for (const write of writes) {
      const path = writtenPath(write.input);
      if (!path) continue;
      const inside = relative(root, resolvePath(root, path));
      if (inside.startsWith('..') || resolvePath(root, path) === root) continue;
      const [first, second] = inside.split(sep);
      const linked = first === 'repos' && second ? repositories.find((repo) => repo.root === `repos/${second}`) : undefined;
      const owner = linked ?? repositories.find((repo) => repo.root === '');
      if (owner) return owner.name;
    }
    return null;
  }

  private remember(key: string, report: ScanReport): void {
    this.judged.set(key, report);
    if (this.judged.size > SCAN_CACHE_SIZE) this.judged.delete(this.judged.keys().next().value!);
  }

  private async scanFolder(
    workspaceId: string,
    folder: string,
    name: string,
    policy: { decisions: Awaited<ReturnType<SkillService['workspaceDecisions']>>; judgedUnder: string },
  ): Promise<{ reason: string; findings: ScanFinding[] } | { description: string; verdict: 'pass' | 'warn'; findings: ScanFinding[]; entries: SkillFolderEntry[] }> {
    let entries: SkillFolderEntry[];
    try {
      entries = await readSkillFolder(folder);
    } catch (error) {
      return { reason: `it could not be scanned: ${error instanceof Error ? error.message : String(error)}`, findings: [] };
    }
    const key = [policy.judgedUnder, name, scanFingerprint(entries)].join('\0');
    let report = this.judged.get(key);
    if (report) this.scanStats.cached += 1;
    else {
      this.scanStats.scans += 1;
      try {
        report = scanSkillFolder(entries, { folderName: name, decisions: policy.decisions });
      } catch (error) {
        // Fail-closed: a folder the scanner cannot judge is refused, never shown (SKL-3).
        return { reason: `it could not be scanned: ${error instanceof SkillScanError || error instanceof Error ? error.message : String(error)}`, findings: [] };
      }
      try {
        report = await this.deps.skills.reviewReport(workspaceId, entries, report);
      } catch (error) {
        return { reason: `the model review failed (${error instanceof Error ? error.message : String(error)})`, findings: report.findings };
      }
      this.remember(key, report);
    }
    if (report.verdict === 'quarantine') {
      const rules = [...new Set(report.findings.filter((finding) => finding.severity === 'quarantine').map((finding) => finding.ruleId))];
      return { reason: `quarantined by ${rules.join(', ')}`, findings: report.findings };
    }
    const parsed = parseSkillFile(new TextDecoder().decode(entries.find((entry) => entry.path === 'SKILL.md')!.content), name);
    return { description: parsed.frontmatter.description, verdict: report.verdict, findings: report.findings, entries };
  }
}

/** The file a write tool's recorded input names (`path` for ours, `file_path`/`notebook_path` for Claude Code's). */
function writtenPath(input: string): string | null {
  try {
    const parsed = JSON.parse(input) as Record<string, unknown>;
    const path = parsed.path ?? parsed.file_path ?? parsed.notebook_path;
    return typeof path === 'string' && path ? path : null;
  } catch {
    return null;
  }
}

/**
 * The repo-skills index of the prompt (HAR-1): the active repository's scanned skills, each with
 * its frontmatter description and the path of its SKILL.md in the worktree (the agent reads the body
 * with its file tools when it needs it). Descriptions are the repository's text, quoted as data.
 */
export function renderRepoSkillsIndex(skills: ConversationRepoSkills): string | undefined {
  const active = skills.repositories.find((repo) => repo.name === skills.activeRepository);
  if (!active || active.skills.length === 0) return undefined;
  const lines = active.skills.map((skill) => `- ${skill.name} (${skill.folder}/SKILL.md): ${JSON.stringify(skill.description)}`);
  return [`Skills shipped by the repository '${active.name}' (scanned; read a SKILL.md when its description fits the task):`, ...lines].join('\n');
}
