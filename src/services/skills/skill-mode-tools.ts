import { z } from 'zod';
import { DomainError } from '../../errors/index.js';
import { defineTool, fail, ok } from '../../tools/define-tool.js';
import type { ModeToolProvider } from '../runs/run-executor.js';
import type { SkillService } from './skill-service.js';

/** Input schemas built once per process, not per run: a tool's JSON schema is converted once per schema object. */
const LoadSkillInput = z.object({ name: z.string().min(1).max(64).describe('The skill name as listed in your Skills section.') });

/**
 * The `skill` tool (SKL-2, HAR-1): loads the body of one of the agent's linked skills on demand. The
 * frontmatter is already in the prompt's Skills section; the body arrives only when the agent asks.
 * Only agents with linked skills get the tool, and only their own skills are reachable through it.
 */
export function skillModeTools(skills: SkillService): ModeToolProvider {
  return ({ workspaceId, agent }) => {
    if (agent.skills.length === 0) return [];
    const linked = new Set(agent.skills.map((name) => name.toLowerCase()));
    return [
      defineTool({
        name: 'skill',
        // The names are not repeated here: a linked name may have nothing loadable behind it, and the
        // Skills section of the prompt lists exactly the ones that load (SKL-1).
        description: 'Load the full instructions of one of the skills listed in your Skills section, by name. Call it before doing work the skill covers.',
        parameters: LoadSkillInput,
        tier: 'read',
        effects: [],
        group: 'skills',
        async execute(input) {
          const key = input.name.toLowerCase();
          if (!linked.has(key)) return fail(`'${input.name}' is not one of your skills (see your Skills section).`);
          try {
            const skill = await skills.loadSkill(workspaceId, key);
            return ok(`# Skill: ${skill.name}\n\n${skill.body}`, { name: skill.name });
          } catch (error) {
            if (error instanceof DomainError) return fail(`The skill '${input.name}' cannot be loaded: ${error.message}`);
            throw error;
          }
        },
      }),
    ];
  };
}
