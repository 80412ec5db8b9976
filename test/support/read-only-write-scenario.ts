import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ClaudeCodeFixture } from './claude-code-fixture.js';
import { makeReviewRepo } from './review-repo.js';
import { reply, type ScriptedRequest } from './scripted-model-server.js';
import type { ScriptedReply } from './scripted-reply.js';

/**
 * CAP-5 for a Claude-engine runner (Claude Code, the Claude Agent SDK, DeepSeek) in a read-only mode:
 * the model learns its working directory (`pwd`), then asks for a native Write and for a Bash
 * redirect there; neither file may appear, both calls must come back as errors, and the Bash refusal
 * must name that mode's rule. The closing texts cover the completion contract's reminders.
 */
export async function expectNativeWritesRefused(
  f: ClaudeCodeFixture,
  mode: 'review' | 'orchestrate',
  begin: () => Promise<string> = () => f.send('write the files'),
  script: (...replies: ScriptedReply[]) => void = (...replies) => f.model.script(...replies),
): Promise<any> {
  const cwdOf = (request: ScriptedRequest) => String(request.lastToolResult?.content ?? '').trim();
  script(
    reply().tool('Bash', { command: 'pwd' }),
    reply((request) => reply().tool('Write', { file_path: join(cwdOf(request), `${mode}-write.txt`), content: 'must not exist' })),
    reply().tool('Bash', { command: `echo must-not-exist > ${mode}-redirect.txt` }),
    reply().text('Nothing was written.'),
    reply().text('Still nothing.'),
    reply().text('Done.'),
  );
  const detail = await f.waitForRun(await begin(), 90_000);
  expect(detail.run.mode).toBe(mode);
  const calls = (name: string) => detail.toolCalls.filter((entry: any) => entry.name === name);
  const [pwd, redirect] = calls('Bash');
  const [write] = calls('Write');
  // Every call reached the runner (a script that never called them would prove nothing).
  const cwd = String(pwd?.output ?? '').trim();
  expect(existsSync(cwd) && cwd.startsWith('/')).toBe(true);
  expect(write?.isError).toBe(true);
  expect(redirect?.isError).toBe(true);
  expect(redirect.output).toMatch(new RegExp(`decided by mode rule mode:${mode}:`));
  expect(existsSync(join(cwd, `${mode}-write.txt`))).toBe(false);
  expect(existsSync(join(cwd, `${mode}-redirect.txt`))).toBe(false);
  return detail;
}

/** The same in review mode, which only a review opens (MODE-6): the fixture's agent reviews a real repository's diff. */
export async function expectNativeWritesRefusedInReview(f: ClaudeCodeFixture): Promise<any> {
  const { repo } = await makeReviewRepo();
  try {
    const ws = `/api/workspaces/${f.workspaceId}`;
    const agent = (await f.api('GET', `${ws}/agents/${f.agentId}`)).body;
    const reviewing = (request: ScriptedRequest) => request.path.startsWith('/v1/messages') && request.allText.includes(`You are ${agent.name}, reviewing`);
    return await expectNativeWritesRefused(
      f,
      'review',
      async () => {
        const opened = await f.api('POST', `${ws}/reviews`, { repoPath: repo, base: 'main', head: 'feature', reviewers: [agent.name] });
        expect(opened.status).toBe(201);
        return opened.body.dispatched[0].runId;
      },
      (...replies) => f.model.scriptFor(reviewing, ...replies),
    );
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
}
