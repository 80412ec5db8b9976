import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AgentTransport, TransportRunContext } from '../../adapters/agent-transport.js';
import { claudeSkillsPluginDir } from '../../adapters/claude-code/claude-code-transport.js';
import type { SkillService } from './skill-service.js';

/** The plugin name Claude Code shows the materialized skills under (`control-center-skills:<name>`). */
export const SKILLS_PLUGIN_NAME = 'control-center-skills';

/**
 * SKL-5 for Claude Code: before the runner starts, the agent's linked *installed* skills — exactly
 * the folders that passed the scan and still hash to their lock entry — are written as a plugin
 * into the run's server-owned folder, which the transport hands to `claude --plugin-dir` and mounts
 * read-only. Drifted, missing and built-in (unscanned) skills are left out. Returns the names written.
 */
export async function materializeSkills(skills: SkillService, context: Pick<TransportRunContext, 'workspaceId' | 'agent' | 'workspaceDir' | 'runId'>): Promise<string[]> {
  const pluginDir = claudeSkillsPluginDir(context.workspaceDir, context.runId);
  const written: string[] = [];
  for (const name of [...new Set(context.agent.skills.map((skill) => skill.toLowerCase()))]) {
    const entries = await skills.scannedFolder(context.workspaceId, name);
    if (!entries) continue;
    for (const entry of entries) {
      // Links are not copied: the scanned folder's files are what the runner gets.
      if (entry.kind !== 'file') continue;
      const target = join(pluginDir, 'skills', name, ...entry.path.split('/'));
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await writeFile(target, entry.content!, { mode: 0o600 });
    }
    written.push(name);
  }
  if (written.length > 0) {
    await mkdir(join(pluginDir, '.claude-plugin'), { recursive: true, mode: 0o700 });
    const manifest = { name: SKILLS_PLUGIN_NAME, version: '1.0.0', description: 'Skills installed through the Control Center (scanned, pinned in skills-lock.json).' };
    await writeFile(join(pluginDir, '.claude-plugin', 'plugin.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  }
  return written;
}

/**
 * Makes every run of the Claude Code transport first materialize the agent's scanned skills (SKL-5).
 * The registered instance stays the same object (its id, declaration and options unchanged); only its
 * `run` is preceded by the materialization.
 */
export function withMaterializedSkills<T extends AgentTransport>(transport: T, skills: SkillService): T {
  const run = transport.run.bind(transport);
  transport.run = async (context) => {
    await materializeSkills(skills, context);
    return run(context);
  };
  return transport;
}
