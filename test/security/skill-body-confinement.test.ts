/**
 * SKL-2 / SEC-4: a skill body is read through the confined reader rooted at the workspace's
 * `skills/` folder — links inside it are followed, a link (or a linked folder) leading out of it is
 * refused, so `/skill:`, the `skill` tool and the prompt's Skills section can never put an outside
 * file (body or description) into a prompt. Folders that were never installed are refused as well (SKL-3).
 */
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';
import { skillMd } from '../support/skill-source-fixture.js';

let fixture: HarnessFixture;
let outside: string;
const SECRET = 'OUTSIDE-SECRET-BODY';

beforeAll(async () => {
  fixture = await startHarnessFixture();
  outside = await mkdtemp(join(tmpdir(), 'cc-outside-'));
  await mkdir(join(outside, 'leak'), { recursive: true });
  await writeFile(join(outside, 'leak', 'SKILL.md'), skillMd('leak', `${SECRET}-DESCRIPTION`, `${SECRET}\n`));
  const skills = join(fixture.workspaceDir, 'skills');
  // A skill whose SKILL.md is a link out, a skill folder that is a link out, and a link inside.
  await mkdir(join(skills, 'file-escape'));
  await symlink(join(outside, 'leak', 'SKILL.md'), join(skills, 'file-escape', 'SKILL.md'));
  await symlink(join(outside, 'leak'), join(skills, 'leak'));
  await mkdir(join(skills, 'real-one'));
  await writeFile(join(skills, 'real-one', 'SKILL.md'), skillMd('real-one', 'Real.', 'INSIDE-BODY\n'));
  await symlink('real-one', join(skills, 'alias-one'));
  // The built-in `implementation` moved to another folder of skills/ with a link in its place: a link inside is followed.
  await rename(join(skills, 'implementation'), join(skills, 'moved-implementation'));
  await symlink('moved-implementation', join(skills, 'implementation'));
  const engineer = fixture.agents.engineer!;
  await fixture.server.api('PATCH', `/api/workspaces/${fixture.workspaceId}/agents/${engineer.id}`, { skills: ['file-escape', 'leak', 'real-one', 'implementation'] });
}, 120_000);

afterAll(async () => {
  await fixture?.dispose();
  if (outside) await rm(outside, { recursive: true, force: true });
});

describe('skill bodies stay inside skills/ (SKL-2, SEC-4)', () => {
  it('/skill: refuses links leaving skills/ and never sends the outside body', async () => {
    for (const name of ['file-escape', 'leak']) {
      const response = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/conversations/${fixture.conversationId}/messages`, { text: `/skill:${name} go` });
      expect(response.status, name).toBe(400);
      expect(JSON.stringify(response.body)).not.toContain(SECRET);
    }
    expect(fixture.model.requests.some((request) => JSON.stringify(request).includes(SECRET))).toBe(false);
  });

  it('the skill tool refuses them too, and a never-installed folder, while a link inside skills/ is followed; the Skills section lists only what loads', async () => {
    fixture.model.script(
      reply().tool('skill', { name: 'file-escape' }),
      reply().tool('skill', { name: 'leak' }),
      reply().tool('skill', { name: 'real-one' }),
      reply().tool('skill', { name: 'implementation' }),
      reply().text('ok'),
    );
    const runId = await fixture.send('@engineer load them');
    const detail = await fixture.waitForRun(runId);
    expect(detail.toolCalls.map((call: any) => [call.name, call.isError])).toEqual([
      ['skill', true],
      ['skill', true],
      ['skill', true],
      ['skill', false],
    ]);
    expect(JSON.stringify(detail)).not.toContain(SECRET);
    expect(detail.toolCalls[2].output).not.toContain('INSIDE-BODY');
    expect(detail.toolCalls[3].output).toContain('# Skill: implementation');
    // The description of a skill whose folder leaves skills/ never reaches the Skills section.
    const system = fixture.model.requests.at(-5)!.system;
    expect(system).not.toContain(SECRET);
    expect(/# Skills\n\n((?:- .*\n?)+)/.exec(system)![1]!.trim().split('\n').map((line) => line.split(':')[0])).toEqual(['- implementation']);
    const alias = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/conversations/${fixture.conversationId}/messages`, { text: '/skill:alias-one go' });
    expect(alias.status).toBe(400);
  });
});
