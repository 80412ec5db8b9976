import { createHash } from 'node:crypto';
import { lstat, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import type { Decision } from '../../core/decisions.js';
import { DEFAULT_EFFECT_DECISIONS, type EffectClass } from '../../core/effect-classes.js';
import { SCAN_RULES_VERSION } from '../../core/skills/scan/rule-catalog.js';
import { scanSkillFolder, SkillScanError } from '../../core/skills/scan/scan-skill.js';
import type { ScanReport, SkillFolderEntry } from '../../core/skills/scan/scan-types.js';
import { computeSkillFolderHash } from '../../core/skills/skill-folder-hash.js';
import { parseSkillFile, skillNameProblem } from '../../core/skills/skill-frontmatter.js';
import { parseSkillsLock, renderSkillsLock, type SkillsLockEntry } from '../../core/skills/skills-lock.js';
import { TarFormatError } from '../../core/skills/tar-entries.js';
import { ConflictError, DomainError, NotFoundError, SkillScanRefusedError, ValidationError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { InstalledSkill, SkillOverride, SkillScanRecord, SkillSource } from '../../schemas/skill.js';
import { findInstalledSkill, findInstalledSkills, listInstalledSkills, upsertInstalledSkill } from '../../store/repositories/installed-skill-repository.js';
import { insertSkillOverride, listSkillOverrides } from '../../store/repositories/skill-quarantine-override-repository.js';
import { findSkillScan, insertSkillScan, listSkillScans } from '../../store/repositories/skill-scan-report-repository.js';
import { deleteSkillSource, findSkillSource, findSkillSourceByUrl, insertSkillSource, listSkillSources } from '../../store/repositories/skill-source-repository.js';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import type { PolicyService } from '../approvals/policy-service.js';
import { BUILT_IN_SKILLS } from '../agents/seed-agents.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import { checkRef, checkSkillPath, checkSourceUrl, fetchSource, type FetchedSource, type SourceUrlLimits } from './skill-source-git.js';
import { reviewSkillWithModel, type ModelReviewDeps } from './skill-model-review.js';
import { openQuarantines } from './open-quarantines.js';
import { readSkillFolder, swapFolder, writeSkillFolder } from './skill-folder-files.js';
import { readConfinedFileSync } from '../../worktree/read-confined-file.js';
import type { AuditActor } from '../../schemas/audit.js';
import { insertAuditEntry } from '../../store/repositories/audit-entry-repository.js';
import { auditEntryOf, type AuditAct } from '../audit/audit-act.js';
import type { ConfigPin } from '../../store/pinned-config-reads.js';

export interface SourceListing {
  source: SkillSource;
  commit: string;
  skills: Array<{ name: string; description: string | null; skillPath: string; valid: boolean; problem: string | null }>;
}

export interface FolderDiff {
  added: string[];
  removed: string[];
  changed: string[];
}

export interface InstallOutcome {
  outcome: 'installed' | 'quarantined' | 'unchanged';
  scan: SkillScanRecord;
  skill: InstalledSkill | null;
  diff: FolderDiff | null;
}

export type VerifyStatus = 'ok' | 'drifted' | 'missing' | 'quarantined' | 'staleRules' | 'unlocked';

export interface VerifyResult {
  ok: boolean;
  rulesVersion: string;
  skills: Array<{ name: string; status: VerifyStatus; expectedHash: string | null; actualHash: string | null }>;
  lockInSync: boolean;
}

/** How many parsed SKILL.md texts a service keeps (a workspace's skills, each in a few versions). */
const PARSED_SKILLS_KEPT = 256;

/** The fetcher is injectable so a test can make the scan itself fail; production uses {@link fetchSource}. */
export type SourceFetcher = (url: string, ref: string | null) => Promise<FetchedSource>;

/** A scanner the service calls; tests replace it with one that throws to prove a crash is a refusal. */
export type FolderScanner = typeof scanSkillFolder;

function fileDigests(entries: readonly SkillFolderEntry[]): Map<string, string> {
  return new Map(entries.map((entry) => [entry.path, entry.kind === 'file' ? createHash('sha256').update(entry.content!).digest('hex') : `link:${entry.linkTarget}`]));
}

/** Files added, removed and changed between two versions of a folder (what `update` shows, SKL-3). */
export function diffFolders(before: readonly SkillFolderEntry[], after: readonly SkillFolderEntry[]): FolderDiff {
  const old = fileDigests(before);
  const next = fileDigests(after);
  return {
    added: [...next.keys()].filter((path) => !old.has(path)).sort(),
    removed: [...old.keys()].filter((path) => !next.has(path)).sort(),
    changed: [...next.keys()].filter((path) => old.has(path) && old.get(path) !== next.get(path)).sort(),
  };
}

function hashOf(entries: readonly SkillFolderEntry[]): string {
  return computeSkillFolderHash(entries.filter((entry) => entry.kind === 'file').map((entry) => ({ path: entry.path, content: entry.content! })));
}

/** What the server adds to the service: where local sources may not point, and the optional model review. */
export interface SkillServiceOptions extends SourceUrlLimits {
  /** Set to enable the model review a workspace setting turns on (SKL-3); without it the setting is refused as unreachable. */
  modelReview?: ModelReviewDeps;
}

/**
 * The skills supply chain of a workspace (SKL-3): operator-registered Git sources, a fail-closed
 * scan between download and write, installs pinned in `skills-lock.json`, verify, update behind the
 * same gate, and recorded quarantine overrides. Installed skills live in `skills/<name>/`, which is
 * where agents' skill links already point (SKL-2).
 */
export class SkillService {
  /** One install/update at a time per workspace: the folder swap and the lock write must not interleave. */
  private readonly locks = new Map<string, Promise<unknown>>();
  /**
   * Parsed SKILL.md files by skill name and the sha256 of the exact text read: every run
   * lists the agent's skills, and parsing the YAML was a measurable share of a tool turn. Keyed by the
   * content, not by path or mtime, so it can never answer for text other than the bytes just read:
   * the file is still read, confined and lock-verified on every load; only the parse is reused.
   */
  private readonly parsedSkills = new Map<string, ReturnType<typeof parseSkillFile>>();

  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly policy: PolicyService,
    private readonly fetcher: SourceFetcher = fetchSource,
    private readonly scanner: FolderScanner = scanSkillFolder,
    private readonly options: SkillServiceOptions = {},
  ) {}

  async listSources(workspaceId: string): Promise<SkillSource[]> {
    return listSkillSources(await this.db(workspaceId));
  }

  /** Registers a source after one successful fetch of its HEAD: an unreachable URL is a 400 and nothing is stored. */
  async addSource(workspaceId: string, rawUrl: string): Promise<SkillSource> {
    const { url, sourceType } = checkSourceUrl(rawUrl, this.options);
    const db = await this.db(workspaceId);
    if (await findSkillSourceByUrl(db, url)) throw new ConflictError('url', `the source ${url} is already registered`);
    const fetched = await this.fetcher(url, null);
    await fetched.dispose();
    const source: SkillSource = { id: newId('ssrc'), url, sourceType, createdAt: nowIso() };
    await insertSkillSource(db, source);
    return source;
  }

  async removeSource(workspaceId: string, sourceId: string): Promise<void> {
    const db = await this.db(workspaceId);
    await this.source(db, sourceId);
    await deleteSkillSource(db, sourceId);
  }

  /** The skills of a source at a ref; names and descriptions are the source's untrusted display data (SKL-3). */
  async browse(workspaceId: string, sourceId: string, ref: string | null): Promise<SourceListing> {
    const source = await this.source(await this.db(workspaceId), sourceId);
    const fetched = await this.fetcher(source.url, ref === null ? null : checkRef(ref));
    try {
      const skills: SourceListing['skills'] = [];
      for (const file of (await fetched.skillFiles()).slice(0, 1000)) {
        if (file === 'SKILL.md') continue;
        const skillPath = file.slice(0, -'/SKILL.md'.length);
        const folder = skillPath.split('/').pop()!;
        try {
          const parsed = parseSkillFile(await fetched.readText(file), folder);
          skills.push({ name: parsed.frontmatter.name, description: parsed.frontmatter.description, skillPath, valid: true, problem: null });
        } catch (error) {
          skills.push({ name: folder, description: null, skillPath, valid: false, problem: error instanceof Error ? error.message : String(error) });
        }
      }
      return { source, commit: fetched.commit, skills: skills.sort((a, b) => (a.skillPath < b.skillPath ? -1 : 1)) };
    } finally {
      await fetched.dispose();
    }
  }

  async listInstalled(workspaceId: string): Promise<InstalledSkill[]> {
    return listInstalledSkills(await this.db(workspaceId));
  }

  async listScans(workspaceId: string): Promise<SkillScanRecord[]> {
    return listSkillScans(await this.db(workspaceId));
  }

  /** Quarantine reports that still wait for a decision, from the store: they outlive a reload and a restart. */
  async listOpenQuarantines(workspaceId: string): Promise<SkillScanRecord[]> {
    const db = await this.db(workspaceId);
    // The whole recent log, not the page `listScans` serves: a skill's newest scan decides whether it waits.
    return openQuarantines(await listSkillScans(db, 1000), await listSkillOverrides(db));
  }

  /** The skills the server ships and seeds into every workspace (the seeded agents link to them). */
  async listBuiltIn(workspaceId: string): Promise<Array<{ name: string; description: string }>> {
    await this.db(workspaceId); // an unknown workspace is a 404, as on every other skills route
    return Object.entries(BUILT_IN_SKILLS).map(([name, skill]) => ({ name, description: skill.description }));
  }

  async getScan(workspaceId: string, reportId: string): Promise<SkillScanRecord> {
    const scan = await findSkillScan(await this.db(workspaceId), reportId);
    if (!scan) throw new NotFoundError('skill scan', reportId, 'reportId');
    return scan;
  }

  async listOverrides(workspaceId: string): Promise<SkillOverride[]> {
    return listSkillOverrides(await this.db(workspaceId));
  }

  /**
   * Install (SKL-3): fetch the whole folder at a commit, scan it, record the report, and only on a
   * pass or warn write `skills/<name>/` and the lock. A quarantine writes nothing but the report; a
   * scanner error writes nothing at all and is a 422.
   */
  async install(workspaceId: string, input: { sourceId: string; path: string; ref?: string | undefined }): Promise<InstallOutcome> {
    const path = checkSkillPath(input.path);
    const ref = input.ref === undefined ? null : checkRef(input.ref);
    return this.serialized(workspaceId, async () => {
      const handle = await this.workspaces.handle(workspaceId);
      const db = handle.database.db;
      const source = await this.source(db, input.sourceId);
      const name = path.split('/').pop()!;
      const nameProblem = skillNameProblem(name);
      if (nameProblem) throw new ValidationError('path', `the folder name '${name}' is not a skill name: it ${nameProblem}`);
      if (await findInstalledSkill(db, name)) throw new ConflictError('path', `a skill named '${name}' is already installed; update it instead`);
      if (await exists(join(handle.dir, 'skills', name))) throw new ConflictError('path', `skills/${name} already exists and is not an installed skill (a built-in or hand-made skill)`);
      const fetched = await this.fetcher(source.url, ref);
      try {
        const { entries, scan } = await this.fetchAndScan(workspaceId, db, fetched, source.id, path, name);
        if (scan.report.verdict === 'quarantine') return { outcome: 'quarantined', scan, skill: null, diff: null };
        const skill = await this.writeInstalled(handle.dir, db, entries, { name, source, path, ref, commit: fetched.commit, scan, overrideId: null });
        return { outcome: 'installed', scan, skill, diff: null };
      } finally {
        await fetched.dispose();
      }
    });
  }

  /**
   * Update (SKL-3): fetch the source again (the pinned ref, or a new one), scan, diff against the
   * installed folder, and replace it only when the gate passes again; a quarantine leaves the
   * installed version in place.
   */
  async update(workspaceId: string, name: string, input: { ref?: string | undefined } = {}): Promise<InstallOutcome> {
    return this.serialized(workspaceId, async () => {
      const handle = await this.workspaces.handle(workspaceId);
      const db = handle.database.db;
      const installed = await this.installed(db, name);
      const source = await this.source(db, installed.sourceId);
      const ref = input.ref === undefined ? installed.ref : checkRef(input.ref);
      const fetched = await this.fetcher(installed.source, ref);
      try {
        const { entries, scan } = await this.fetchAndScan(workspaceId, db, fetched, source.id, installed.skillPath, name);
        const current = await readSkillFolder(join(handle.dir, 'skills', name)).catch(() => []);
        const diff = diffFolders(current, entries);
        if (scan.report.verdict === 'quarantine') return { outcome: 'quarantined', scan, skill: installed, diff };
        if (scan.computedHash === installed.computedHash && fetched.commit === installed.commit && scan.report.rulesVersion === installed.rulesVersion && diff.added.length + diff.removed.length + diff.changed.length === 0) {
          return { outcome: 'unchanged', scan, skill: installed, diff };
        }
        const skill = await this.writeInstalled(handle.dir, db, entries, { name, source, path: installed.skillPath, ref, commit: fetched.commit, scan, overrideId: null });
        return { outcome: 'installed', scan, skill, diff };
      } finally {
        await fetched.dispose();
      }
    });
  }

  /**
   * The operator's explicit override of a quarantine (SKL-3): bound to one report and to the exact
   * content it scanned — the folder is fetched again at the report's commit and installed only if its
   * hash is the one the operator saw. The override is recorded and named in the lock.
   */
  /** Installs a quarantined skill anyway; `actor` is the person who chose to, recorded in the audit log in the install's transaction (TEAM-3). */
  async override(workspaceId: string, input: { reportId: string; reason: string }, actor?: AuditActor): Promise<InstallOutcome> {
    return this.serialized(workspaceId, async () => {
      const handle = await this.workspaces.handle(workspaceId);
      const db = handle.database.db;
      const scan = await findSkillScan(db, input.reportId);
      if (!scan) throw new NotFoundError('skill scan', input.reportId, 'reportId');
      if (scan.report.verdict !== 'quarantine') throw new ConflictError('reportId', `scan ${scan.id} is not a quarantine (verdict ${scan.report.verdict}); nothing to override`);
      if (!scan.sourceId) throw new ConflictError('reportId', `scan ${scan.id} has no source to fetch from`);
      const source = await this.source(db, scan.sourceId);
      const existing = await findInstalledSkill(db, scan.skillName);
      if (!existing && (await exists(join(handle.dir, 'skills', scan.skillName)))) throw new ConflictError('reportId', `skills/${scan.skillName} already exists and is not an installed skill`);
      const fetched = await this.fetcher(source.url, scan.commit);
      try {
        if (fetched.commit !== scan.commit) throw new ConflictError('reportId', `the source no longer serves commit ${scan.commit}`);
        const entries = await this.folderOf(fetched, scan.skillPath);
        const hash = hashOf(entries);
        if (hash !== scan.computedHash) throw new ConflictError('reportId', `the content at ${scan.commit} hashes to ${hash}, not the scanned ${scan.computedHash}`);
        const override: SkillOverride = { id: newId('sovr'), reportId: scan.id, skillName: scan.skillName, computedHash: hash, reason: input.reason.trim(), createdAt: nowIso() };
        const audit = actor ? { kind: 'skill.override_set', actor, workspaceId, subject: { type: 'skill', id: scan.skillName }, summary: `Installed quarantined skill ${scan.skillName} anyway: ${override.reason}`.slice(0, 300), details: { reportId: scan.id, overrideId: override.id, commit: scan.commit } } : undefined;
        const skill = await this.writeInstalled(handle.dir, db, entries, { name: scan.skillName, source, path: scan.skillPath, ref: existing?.ref ?? null, commit: scan.commit, scan, overrideId: override.id }, override, audit);
        return { outcome: 'installed', scan, skill, diff: null };
      } finally {
        await fetched.dispose();
      }
    });
  }

  /** Verify (SKL-3): each installed skill's folder against its pinned hash, and the lock against the rows. */
  async verify(workspaceId: string): Promise<VerifyResult> {
    const handle = await this.workspaces.handle(workspaceId);
    const rows = await listInstalledSkills(handle.database.db);
    const skills: VerifyResult['skills'] = [];
    for (const row of rows) {
      const folder = join(handle.dir, 'skills', row.name);
      if (!(await exists(folder))) {
        skills.push({ name: row.name, status: 'missing', expectedHash: row.computedHash, actualHash: null });
        continue;
      }
      const actual = hashOf(await readSkillFolder(folder));
      const status: VerifyStatus = actual !== row.computedHash ? 'drifted' : row.scanVerdict === 'quarantine' ? 'quarantined' : row.rulesVersion !== SCAN_RULES_VERSION ? 'staleRules' : 'ok';
      skills.push({ name: row.name, status, expectedHash: row.computedHash, actualHash: actual });
    }
    const known = new Set(rows.map((row) => row.name));
    for (const dirent of await readdir(join(handle.dir, 'skills'), { withFileTypes: true }).catch(() => [])) {
      if (!dirent.isDirectory() || dirent.name.startsWith('.') || known.has(dirent.name)) continue;
      const text = await readFile(join(handle.dir, 'skills', dirent.name, 'SKILL.md'), 'utf8').catch(() => '');
      if (/^source:\s*built-in\s*$/m.test(text.split('\n---')[0] ?? '')) continue;
      skills.push({ name: dirent.name, status: 'unlocked', expectedHash: null, actualHash: null });
    }
    const lockText = await readFile(join(handle.dir, 'skills-lock.json'), 'utf8').catch(() => '');
    const lockInSync = lockText === renderSkillsLock(lockEntries(rows)) || (rows.length === 0 && parseSkillsLock(lockText)?.skills !== undefined && Object.keys(parseSkillsLock(lockText)!.skills).length === 0);
    skills.sort((a, b) => (a.name < b.name ? -1 : 1));
    return { ok: lockInSync && skills.every((skill) => skill.status === 'ok'), rulesVersion: SCAN_RULES_VERSION, skills, lockInSync };
  }

  /**
   * Loads a skill's body for a prompt (SKL-2): `skills/<name>/SKILL.md` read through the confined
   * reader (links followed but never out of `skills/`, SEC-4). An installed skill whose folder no
   * longer hashes to its lock entry is refused: content that changed after the scan never reaches a
   * prompt (SKL-3).
   */
  async loadSkill(workspaceId: string, rawName: string): Promise<{ name: string; description: string; body: string }> {
    const name = rawName.toLowerCase();
    if (skillNameProblem(name)) throw new NotFoundError('skill', rawName, 'name');
    const handle = await this.workspaces.handle(workspaceId);
    return this.loadChecked(handle.dir, rawName, await findInstalledSkill(handle.database.db, name));
  }

  /** {@link loadSkill} with the skill's installed row (or null) already read. */
  private async loadChecked(workspaceDir: string, rawName: string, installed: InstalledSkill | null): Promise<{ name: string; description: string; body: string }> {
    const name = rawName.toLowerCase();
    const root = join(workspaceDir, 'skills');
    if (installed) {
      const actual = hashOf(await readSkillFolder(join(root, name)).catch(() => []));
      if (actual !== installed.computedHash) throw new ConflictError('name', `skill '${name}' changed on disk after it was scanned (hash ${actual.slice(0, 12)}, locked ${installed.computedHash.slice(0, 12)}); update or reinstall it`);
    } else if (!Object.hasOwn(BUILT_IN_SKILLS, name)) {
      // SKL-3: a folder in skills/ that was never installed (hand-made, or left behind) has no scan
      // verdict, so its content never reaches a prompt; only the server's own built-ins are exempt.
      throw new NotFoundError('skill', rawName, 'name');
    }
    // Synchronous: every run lists its skills, and the confined read is a handful of descriptor-pinned
    // calls and one read, cheaper than their round trips through the thread pool.
    const bytes = readConfinedFileSync(root, `${name}/SKILL.md`, { maxBytes: 512 * 1024 });
    if (!bytes) throw new NotFoundError('skill', rawName, 'name');
    const text = bytes.toString('utf8');
    let parsed: ReturnType<typeof parseSkillFile>;
    try {
      parsed = this.parsedSkill(text, name);
    } catch (error) {
      throw new ValidationError('name', error instanceof Error ? error.message : String(error));
    }
    // A built-in name is trusted only with the marker the seeding writes (an operator's own folder under that name is not).
    if (!installed && !/^source:\s*built-in\s*$/m.test(text.split('\n---')[0] ?? '')) throw new NotFoundError('skill', rawName, 'name');
    return { name, description: parsed.frontmatter.description, body: parsed.body };
  }

  /**
   * The Skills section of the prompt (SKL-1, SKL-2): of the agent's linked names, exactly the skills
   * {@link loadSkill} would load now — installed skills still hashing to their lock entry, and the
   * server's built-ins — each once, under its canonical name with its frontmatter description. A
   * linked name with nothing installed behind it, a drifted, missing, hand-made or unreadable skill,
   * or one whose folder leaves `skills/`, is left out: the prompt never names a skill the agent
   * cannot load, and never shows a description that was not scanned.
   */
  async promptSkills(workspaceId: string, linked: readonly string[], pin?: ConfigPin): Promise<Array<{ name: string; description: string }>> {
    const listed: Array<{ name: string; description: string }> = [];
    const names = [...new Set(linked.map((skill) => skill.toLowerCase()))].filter((name) => !skillNameProblem(name));
    const handle = await this.workspaces.handle(workspaceId);
    // One read for all the agent's skills (every run lists them): on PostgreSQL each read is a round trip.
    const installed = await findInstalledSkills(handle.database.db, names, pin);
    for (const name of names) {
      try {
        const skill = await this.loadChecked(handle.dir, name, installed.get(name) ?? null);
        listed.push({ name: skill.name, description: skill.description });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
    }
    return listed;
  }

  /**
   * The entries of an installed skill when its folder still hashes to its lock entry, else null
   * (not installed, missing or drifted): what file-scanning runners are given (SKL-5).
   */
  async scannedFolder(workspaceId: string, name: string): Promise<SkillFolderEntry[] | null> {
    const handle = await this.workspaces.handle(workspaceId);
    const installed = await findInstalledSkill(handle.database.db, name);
    if (!installed) return null;
    const entries = await readSkillFolder(join(handle.dir, 'skills', name)).catch(() => null);
    if (!entries || hashOf(entries) !== installed.computedHash) return null;
    return entries;
  }

  /** Workspace-scope decisions per effect class: the capability manifest is checked against these (SKL-3, POL-2). */
  async workspaceDecisions(workspaceId: string): Promise<Record<EffectClass, Decision>> {
    const decisions: Record<EffectClass, Decision> = { ...DEFAULT_EFFECT_DECISIONS };
    for (const rule of await this.policy.listRules(workspaceId)) {
      if (rule.scope === 'workspace' && rule.match.kind === 'class') decisions[rule.match.effectClass] = rule.decision;
    }
    return decisions;
  }

  /** Which model review (if any) a scan of this workspace gets now: part of what a cached verdict was judged under. */
  async reviewSetting(workspaceId: string): Promise<string> {
    const deps = this.options.modelReview;
    if (!deps) return 'off';
    return JSON.stringify((await deps.settings.get(workspaceId)).skillModelReview ?? null);
  }

  /** The report after the optional model review (stricter only); unchanged when the workspace has it off. Throws when the review fails. */
  async reviewReport(workspaceId: string, entries: readonly SkillFolderEntry[], report: ScanReport): Promise<ScanReport> {
    const deps = this.options.modelReview;
    if (!deps) return report;
    return reviewSkillWithModel(deps, workspaceId, entries, report);
  }

  private async folderOf(fetched: FetchedSource, path: string): Promise<SkillFolderEntry[]> {
    try {
      return await fetched.folder(path);
    } catch (error) {
      if (error instanceof TarFormatError) throw new SkillScanRefusedError('path', `the folder could not be read safely (${error.message}); nothing was written`);
      throw error;
    }
  }

  private async fetchAndScan(workspaceId: string, db: Kysely<WorkspaceSchema>, fetched: FetchedSource, sourceId: string, path: string, name: string): Promise<{ entries: SkillFolderEntry[]; scan: SkillScanRecord }> {
    const entries = await this.folderOf(fetched, path);
    let report: ScanReport;
    try {
      report = this.scanner(entries, { folderName: name, decisions: await this.workspaceDecisions(workspaceId) });
    } catch (error) {
      // Fail-closed: a scanner that cannot finish is a refusal, never a pass (SKL-3).
      const reason = error instanceof SkillScanError ? error.message : `the scanner failed: ${error instanceof Error ? error.message : String(error)}`;
      throw new SkillScanRefusedError('path', `scan refused '${path}' at ${fetched.commit.slice(0, 12)}: ${reason}; nothing was written`);
    }
    report = await this.reviewReport(workspaceId, entries, report).catch((error: unknown) => {
      // Fail-closed: with the review enabled, no answer is a refusal, never the static verdict alone (SKL-3).
      throw new SkillScanRefusedError('path', `scan refused '${path}' at ${fetched.commit.slice(0, 12)}: the model review failed (${error instanceof Error ? error.message : String(error)}); nothing was written`);
    });
    const scan: SkillScanRecord = { id: newId('sscan'), sourceId, skillName: name, skillPath: path, commit: fetched.commit, computedHash: hashOf(entries), report, createdAt: nowIso() };
    await insertSkillScan(db, scan);
    return { entries, scan };
  }

  /** Stages the folder, swaps it in, records the row (and override) and rewrites the lock; any failure undoes the folder. */
  private async writeInstalled(
    dir: string,
    db: Kysely<WorkspaceSchema>,
    entries: readonly SkillFolderEntry[],
    install: { name: string; source: SkillSource; path: string; ref: string | null; commit: string; scan: SkillScanRecord; overrideId: string | null },
    override?: SkillOverride,
    audit?: AuditAct,
  ): Promise<InstalledSkill> {
    const staged = join(dir, 'skills', `.staging-${newId('stg')}`);
    const target = join(dir, 'skills', install.name);
    const backup = join(dir, 'skills', `.previous-${newId('stg')}`);
    const skill: InstalledSkill = {
      name: install.name,
      sourceId: install.source.id,
      source: install.source.url,
      sourceType: install.source.sourceType,
      skillPath: install.path,
      ref: install.ref,
      commit: install.commit,
      computedHash: install.scan.computedHash,
      scanVerdict: install.scan.report.verdict,
      rulesVersion: install.scan.report.rulesVersion,
      reportId: install.scan.id,
      overrideId: install.overrideId,
      installedAt: nowIso(),
    };
    try {
      await writeSkillFolder(staged, entries);
      await db.transaction().execute(async (trx) => {
        if (audit) await insertAuditEntry(trx, auditEntryOf(audit));
        if (override) await insertSkillOverride(trx, override);
        await upsertInstalledSkill(trx, skill);
        await this.writeLock(dir, await listInstalledSkills(trx));
        await swapFolder(staged, target, backup);
      });
    } catch (error) {
      await rm(staged, { recursive: true, force: true });
      await this.writeLock(dir, await listInstalledSkills(db)).catch(() => undefined);
      throw error;
    }
    return skill;
  }

  private async writeLock(dir: string, rows: readonly InstalledSkill[]): Promise<void> {
    const path = join(dir, 'skills-lock.json');
    const temporary = `${path}.${newId('tmp')}`;
    await writeFile(temporary, renderSkillsLock(lockEntries(rows)));
    await rename(temporary, path);
  }

  /** {@link parseSkillFile} of `text`, reused while the same text is read again (a parse error is never kept). */
  private parsedSkill(text: string, name: string): ReturnType<typeof parseSkillFile> {
    const key = `${name}:${createHash('sha256').update(text).digest('hex')}`;
    const known = this.parsedSkills.get(key);
    if (known) return known;
    const parsed = parseSkillFile(text, name);
    // Bounded: the oldest entry goes first (a skill edited many times leaves its old versions behind).
    if (this.parsedSkills.size >= PARSED_SKILLS_KEPT) this.parsedSkills.delete(this.parsedSkills.keys().next().value!);
    this.parsedSkills.set(key, parsed);
    return parsed;
  }

  private async serialized<T>(workspaceId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(workspaceId) ?? Promise.resolve();
    const next = previous.then(work, work);
    this.locks.set(workspaceId, next.catch(() => undefined));
    return next;
  }

  private async source(db: Kysely<WorkspaceSchema>, sourceId: string): Promise<SkillSource> {
    const source = await findSkillSource(db, sourceId);
    if (!source) throw new NotFoundError('skill source', sourceId, 'sourceId');
    return source;
  }

  private async installed(db: Kysely<WorkspaceSchema>, name: string): Promise<InstalledSkill> {
    const skill = await findInstalledSkill(db, name);
    if (!skill) throw new NotFoundError('installed skill', name, 'name');
    return skill;
  }

  private async db(workspaceId: string): Promise<Kysely<WorkspaceSchema>> {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }
}

/** The lock entries of the installed rows: `npx skills` field names plus ours (SKL-3). */
export function lockEntries(rows: readonly InstalledSkill[]): Record<string, SkillsLockEntry> {
  return Object.fromEntries(
    rows.map((row) => [
      row.name,
      {
        source: row.source,
        ...(row.ref ? { ref: row.ref } : {}),
        sourceType: row.sourceType,
        skillPath: `${row.skillPath}/SKILL.md`,
        computedHash: row.computedHash,
        commit: row.commit,
        scanVerdict: row.scanVerdict,
        rulesVersion: row.rulesVersion,
        ...(row.overrideId ? { override: row.overrideId } : {}),
      },
    ]),
  );
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
