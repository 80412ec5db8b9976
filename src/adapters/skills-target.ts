import { isAbsolute, join, relative } from 'node:path';
import { safeSegment } from './runner-setup.js';

/**
 * SKL-5: where a runner's own skill discovery reads the scanned skills, written by the server's
 * prepare stage before the run starts. The folder is server-owned, inside the run's folder (removed
 * with it) and mounted read-only for the runner: nothing is written into the agent's checkout, and
 * the agent cannot swap the scanned set for its own.
 */
export interface SkillsTarget {
  dir: string;
  /**
   * `claudePlugin`: a Claude Code plugin (`skills/<name>/…` plus `.claude-plugin/plugin.json`),
   * loaded with `--plugin-dir` or the SDK's `plugins` option; `skillFolders`: `<name>/…` directly,
   * for runners that scan a skills root.
   */
  layout: 'claudePlugin' | 'skillFolders';
}

/** The run's skills plugin folder for a runner whose run folders live under `<workspace>/<runner>/runs/`. */
export function runSkillsPluginDir(workspaceDir: string, runner: string, runId: string): string {
  return join(workspaceDir, runner, 'runs', safeSegment(runId), 'skills-plugin');
}

/** Whether `path` lies strictly inside `root` (lexically; both absolute): a skill offered from the run's folder. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}
