import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { FileOperations } from '../file-operations.js';

/** What an agent's directory is made from: its row, plus its manager's name for readability. */
export interface AgentDirectoryContent {
  name: string;
  title: string;
  persona: string;
  systemPrompt: string | null;
  skills: string[];
  adapterId: string | null;
  modelId: string | null;
  effort: string | null;
  contextSize: number | null;
  silenceTimeoutMinutes: number | null;
  reportsToName: string | null;
  acpCommand?: { command: string; args: string[] } | null;
}

/** A directory change that has been made but can still be undone until the row commits. */
export interface PendingDirectoryChange {
  commit(): Promise<void>;
  rollback(): Promise<void>;
}

/** The link directory name of a skill: skills are case-insensitive (SKL-1), directories lowercase. */
export function skillDirectoryName(skill: string): string {
  return skill.toLowerCase();
}

/** AGENTS.md: YAML frontmatter with the definition, then the persona and instructions as prose (AG-2). */
export function renderAgentsMarkdown(agent: AgentDirectoryContent): string {
  const frontmatter = stringify({
    name: agent.name,
    title: agent.title,
    reportsTo: agent.reportsToName,
    skills: agent.skills,
    adapter: agent.adapterId ?? 'built-in',
    model: agent.modelId,
    effort: agent.effort,
    contextSize: agent.contextSize,
    silenceTimeoutMinutes: agent.silenceTimeoutMinutes,
  }).trimEnd();
  const sections = [`---\n${frontmatter}\n---`, `# ${agent.name}${agent.title ? ` — ${agent.title}` : ''}`];
  if (agent.persona.trim()) sections.push(`## Persona\n\n${agent.persona.trim()}`);
  if (agent.systemPrompt?.trim()) sections.push(`## Agent instructions\n\n${agent.systemPrompt.trim()}`);
  return `${sections.join('\n\n')}\n`;
}

/**
 * Writes `agents/<slug>/` (AGENTS.md and `.agents/skills/<skill>` → `skills/<skill>`) next to the
 * final place first, then swaps it in with renames, keeping the previous directory aside until the
 * caller commits. Rollback restores exactly what was there before.
 */
export class AgentDirectory {
  constructor(
    private readonly files: FileOperations,
    private readonly workspaceDir: string,
  ) {}

  pathOf(name: string): string {
    return join(this.workspaceDir, 'agents', name);
  }

  /** Builds the directory for `agent` and moves it to `agents/<agent.name>`, replacing `previousName`'s. */
  async write(agent: AgentDirectoryContent, previousName: string | null): Promise<PendingDirectoryChange> {
    const agentsDir = join(this.workspaceDir, 'agents');
    const token = randomBytes(6).toString('hex');
    const staging = join(agentsDir, `.staging-${agent.name}-${token}`);
    const target = this.pathOf(agent.name);
    const moved: Array<{ from: string; to: string }> = [];
    const undo = async () => {
      for (const move of moved.reverse()) await this.files.rename(move.to, move.from);
    };
    try {
      await this.files.mkdir(join(staging, '.agents', 'skills'));
      await this.files.writeFile(join(staging, 'AGENTS.md'), renderAgentsMarkdown(agent));
      for (const skill of agent.skills) {
        const directory = skillDirectoryName(skill);
        // Relative, so the whole data directory can be moved without breaking links.
        await this.files.symlink(join('..', '..', '..', '..', 'skills', directory), join(staging, '.agents', 'skills', directory));
      }
      const asideDirs: string[] = [];
      for (const existing of new Set([previousName ? this.pathOf(previousName) : null, target])) {
        if (existing && (await this.files.exists(existing))) {
          const aside = join(agentsDir, `.previous-${token}-${asideDirs.length}`);
          await this.files.rename(existing, aside);
          moved.push({ from: existing, to: aside });
          asideDirs.push(aside);
        }
      }
      await this.files.rename(staging, target);
      return {
        commit: async () => {
          for (const aside of asideDirs) await this.files.remove(aside);
        },
        rollback: async () => {
          await this.files.remove(target);
          await undo();
        },
      };
    } catch (error) {
      await this.files.remove(staging).catch(() => undefined);
      await undo().catch(() => undefined);
      throw error;
    }
  }

  /** Moves the directory aside; commit deletes it, rollback puts it back. */
  async remove(name: string): Promise<PendingDirectoryChange> {
    const target = this.pathOf(name);
    if (!(await this.files.exists(target))) return { commit: async () => undefined, rollback: async () => undefined };
    const aside = join(this.workspaceDir, 'agents', `.removed-${name}-${randomBytes(6).toString('hex')}`);
    await this.files.rename(target, aside);
    return {
      commit: () => this.files.remove(aside),
      rollback: () => this.files.rename(aside, target),
    };
  }
}
