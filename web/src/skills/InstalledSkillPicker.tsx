import { useQuery } from '@tanstack/react-query';
import type { InstalledSkill } from '@server/schemas/skill';
import { api } from '../api/client';
import { skillVerdictWord } from '../ui/words';

/**
 * The installed-skill picker of the agent editor (SKL-2, SKL-3): the workspace's installed skills
 * (scanned, pinned in skills-lock.json), each linkable to the agent with one click. Names and
 * descriptions are the source's untrusted text and are rendered as text only. Names not installed
 * (built-in or hand-made skills) can still be typed in the tag input above it.
 */
export function InstalledSkillPicker({ ws, value, onChange }: { ws: string; value: string[]; onChange: (next: string[]) => void }) {
  const installed = useQuery({ queryKey: ['skills', ws], queryFn: () => api.get<{ skills: InstalledSkill[] }>(`/api/workspaces/${ws}/skills`) });
  if (installed.isLoading) return null;
  if (installed.isError) return <p className="muted small">Installed skills could not be loaded.</p>;
  const skills = installed.data?.skills ?? [];
  if (skills.length === 0) return <p className="muted small">No installed skills yet: install some on the Skills page.</p>;
  const linked = new Set(value.map((name) => name.toLowerCase()));
  return (
    <ul className="skill-picker" aria-label="Installed skills" data-testid="installed-skill-picker">
      {skills.map((skill) => {
        const isLinked = linked.has(skill.name);
        return (
          <li key={skill.name}>
            <label>
              <input
                type="checkbox"
                checked={isLinked}
                aria-label={`Link installed skill ${skill.name}`}
                onChange={() => onChange(isLinked ? value.filter((name) => name.toLowerCase() !== skill.name) : [...value, skill.name])}
              />{' '}
              <code>{skill.name}</code> <span className="muted small">({skillVerdictWord(skill.scanVerdict)}{skill.overrideId ? ', override recorded' : ''})</span>
            </label>
          </li>
        );
      })}
    </ul>
  );
}
