import { z } from 'zod';
import { EFFECT_CLASSES } from '../core/effect-classes.js';
import { SKILL_CAPABILITIES } from '../core/skills/scan/scan-types.js';
import { IsoTime } from './common.js';

/** An Agent Skills name (SKL-2): 1–64 lowercase letters, digits and single hyphens. */
export const SkillNameParam = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be 1–64 lowercase letters, digits and single hyphens');

export const ScanVerdict = z.enum(['pass', 'warn', 'quarantine']);

export const ScanFinding = z.object({
  ruleId: z.string(),
  severity: z.enum(['warn', 'quarantine']),
  file: z.string(),
  line: z.number().int(),
  message: z.string(),
});

export const ScanReport = z.object({
  verdict: ScanVerdict,
  rulesVersion: z.string(),
  findings: z.array(ScanFinding),
  capabilities: z.array(
    z.object({
      capability: z.enum(SKILL_CAPABILITIES),
      effectClass: z.enum(EFFECT_CLASSES),
      file: z.string(),
      line: z.number().int(),
      decision: z.enum(['allow', 'ask', 'deny']),
    }),
  ),
  fileCount: z.number().int(),
  byteCount: z.number().int(),
});

/** A stored scan (SKL-3), whatever its outcome. */
export const SkillScanRecord = z.object({
  id: z.string(),
  sourceId: z.string().nullable(),
  skillName: z.string(),
  skillPath: z.string(),
  commit: z.string(),
  computedHash: z.string(),
  report: ScanReport,
  createdAt: IsoTime,
});
export type SkillScanRecord = z.infer<typeof SkillScanRecord>;

export const SkillSource = z.object({
  id: z.string(),
  url: z.string(),
  sourceType: z.string(),
  createdAt: IsoTime,
});
export type SkillSource = z.infer<typeof SkillSource>;

export const CreateSkillSourceBody = z.object({
  url: z.string().min(1).max(4096).describe('Any URL git can fetch: https, ssh, git, file:// or an absolute local path'),
});

/** A skill found in a source: every field is the source's own, untrusted display data (SKL-3). */
export const SourceSkill = z.object({
  name: z.string(),
  description: z.string().nullable(),
  skillPath: z.string().describe('Path of the skill folder in the repository'),
  valid: z.boolean(),
  problem: z.string().nullable(),
});

export const SourceListing = z.object({
  source: SkillSource,
  commit: z.string(),
  skills: z.array(SourceSkill),
});
export type SourceListing = z.infer<typeof SourceListing>;

export const InstalledSkill = z.object({
  name: z.string(),
  sourceId: z.string(),
  source: z.string(),
  sourceType: z.string(),
  skillPath: z.string(),
  ref: z.string().nullable(),
  commit: z.string(),
  computedHash: z.string(),
  scanVerdict: ScanVerdict,
  rulesVersion: z.string(),
  reportId: z.string(),
  overrideId: z.string().nullable(),
  installedAt: IsoTime,
});
export type InstalledSkill = z.infer<typeof InstalledSkill>;

export const InstallSkillBody = z.object({
  sourceId: z.string().min(1),
  path: z.string().min(1).max(1000).describe('The skill folder in the source repository, e.g. skills/pdf'),
  ref: z.string().min(1).max(255).optional().describe('Branch, tag or commit (default: the remote HEAD)'),
});

/** The answer to install and update: what the gate decided and, when installed, the pinned skill. */
export const InstallOutcome = z.object({
  outcome: z.enum(['installed', 'quarantined', 'unchanged']),
  scan: SkillScanRecord,
  skill: InstalledSkill.nullable(),
  /** For update: files added, removed and changed against the installed folder. */
  diff: z.object({ added: z.array(z.string()), removed: z.array(z.string()), changed: z.array(z.string()) }).nullable(),
});
export type InstallOutcome = z.infer<typeof InstallOutcome>;

export const OverrideBody = z.object({
  reportId: z.string().min(1),
  reason: z.string().trim().min(1).max(2000),
});

export const SkillOverride = z.object({
  id: z.string(),
  reportId: z.string(),
  skillName: z.string(),
  computedHash: z.string(),
  reason: z.string(),
  createdAt: IsoTime,
});
export type SkillOverride = z.infer<typeof SkillOverride>;

export const VerifyResult = z.object({
  ok: z.boolean(),
  rulesVersion: z.string(),
  skills: z.array(
    z.object({
      name: z.string(),
      status: z.enum(['ok', 'drifted', 'missing', 'quarantined', 'staleRules', 'unlocked']),
      expectedHash: z.string().nullable(),
      actualHash: z.string().nullable(),
    }),
  ),
  lockInSync: z.boolean(),
});
export type VerifyResult = z.infer<typeof VerifyResult>;

export const SkillBody = z.object({ name: z.string(), description: z.string(), body: z.string() });

/** SKL-4: a repository a space links, checked out under `repos/<name>/` of each conversation's worktree. */
export const SpaceRepositoryLink = z.object({ spaceId: z.string(), name: z.string(), repoPath: z.string(), createdAt: z.string() });
export type SpaceRepositoryLink = z.infer<typeof SpaceRepositoryLink>;

export const LinkRepositoryBody = z.strictObject({
  name: z.string().min(1).max(64),
  repoPath: z.string().min(1).max(4096),
});

/** SKL-4/5: the scanned skills of a conversation's repositories; refused ones say why and are never shown to a runner. */
export const ConversationRepoSkills = z.object({
  activeRepository: z.string().nullable(),
  repositories: z.array(
    z.object({
      name: z.string(),
      root: z.string(),
      skills: z.array(z.object({ name: z.string(), description: z.string(), folder: z.string(), verdict: z.enum(['pass', 'warn']), findings: z.array(ScanFinding) })),
      refused: z.array(z.object({ folder: z.string(), reason: z.string(), findings: z.array(ScanFinding) })),
    }),
  ),
});
export type ConversationRepoSkills = z.infer<typeof ConversationRepoSkills>;

/** A skill the server ships and seeds into every workspace's `skills/` (SKL-2); the seeded agents link to these. */
export const BuiltInSkill = z.object({ name: z.string(), description: z.string() });
export type BuiltInSkill = z.infer<typeof BuiltInSkill>;
