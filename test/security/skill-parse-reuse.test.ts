/**
 * SKL-2 / SKL-3: the server keeps parsed SKILL.md files so a run does not parse the same
 * YAML again, keyed by the exact text just read. This proves the reuse can never put text into a
 * prompt that the file no longer holds: a built-in skill edited on disk shows its new description at
 * once, and one whose built-in marker was removed (an operator's folder under a built-in name, so never
 * scanned) is left out, although its earlier text was parsed and kept.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarnessFixture, type HarnessFixture } from '../support/harness-fixture.js';
import { reply } from '../support/scripted-reply.js';

let fixture: HarnessFixture;
let skillFile: string;
let original: string;

beforeAll(async () => {
  fixture = await startHarnessFixture();
  skillFile = join(fixture.workspaceDir, 'skills', 'implementation', 'SKILL.md');
  original = await readFile(skillFile, 'utf8');
  const engineer = fixture.agents.engineer!;
  const patched = await fixture.server.api('PATCH', `/api/workspaces/${fixture.workspaceId}/agents/${engineer.id}`, { skills: ['implementation'] });
  expect(patched.status).toBe(200);
}, 120_000);

afterAll(async () => {
  await fixture?.dispose();
});

/** The Skills section of the system prompt of one turn of the engineer. */
async function skillsSection(): Promise<string> {
  fixture.model.script(reply().text('ok'));
  await fixture.waitForRun(await fixture.send('@engineer hi'));
  const system = fixture.model.requests.at(-1)!.system as string;
  return /# Skills\n\n((?:- .*\n?)+)/.exec(system)?.[1] ?? '';
}

describe('a reused skill parse never outlives the text it was parsed from (SKL-2, SKL-3)', () => {
  it('an edited built-in shows its new description on the next turn', async () => {
    const before = await skillsSection();
    expect(before).toContain('- implementation:');
    // Read again and kept: the same text parses to the same section.
    expect(await skillsSection()).toBe(before);
    await writeFile(skillFile, original.replace(/^description: .*$/m, 'description: EDITED-DESCRIPTION'));
    expect(await skillsSection()).toContain('- implementation: EDITED-DESCRIPTION');
  });

  it('a folder that lost the built-in marker is left out, though its text was parsed before', async () => {
    await writeFile(skillFile, original);
    expect(await skillsSection()).toContain('- implementation:');
    await writeFile(skillFile, original.replace(/^source: built-in\n/m, ''));
    expect(await skillsSection()).not.toContain('implementation');
    const load = await fixture.server.api('POST', `/api/workspaces/${fixture.workspaceId}/conversations/${fixture.conversationId}/messages`, { text: '/skill:implementation go' });
    expect(load.status).toBe(400);
    expect(load.body.error.message).toContain('unknown skill');
  });
});
