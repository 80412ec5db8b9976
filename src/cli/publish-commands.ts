import type { Command } from 'commander';
import type { ConversationMerge, ConversationPublication, PublishDraft } from '../schemas/publish.js';
import type { OperatorCommandContext } from './operator-commands.js';
import { printable } from './terminal-text.js';

/** Agents wrote part of what is printed (titles, bodies, file names): control sequences never reach the terminal. */
const out = (line: string): void => {
  process.stdout.write(`${printable(line, { keepNewlines: true })}\n`);
};

function describePublication(publication: ConversationPublication): string {
  const where = `${publication.owner}/${publication.repo}`;
  switch (publication.status) {
    case 'awaitingApproval':
      return `waiting for approval ${publication.approvalId ?? ''}: push ${publication.headBranch} to ${where} and ${publication.number ? `update pull request #${publication.number}` : `open a pull request into ${publication.baseBranch}`} (decide it in the Inbox)`;
    case 'published':
      return `published: pull request #${publication.number} (${publication.prState}) ${publication.webUrl} at ${publication.headSha?.slice(0, 12) ?? 'unknown commit'}`;
    case 'publishing':
      return `being sent to ${where}`;
    default:
      return `${publication.status}: ${publication.error ?? 'no reason given'}`;
  }
}

function describeMerge(merge: ConversationMerge): string {
  const how = merge.kind === 'fastForward' ? 'fast-forwarded' : 'merged with a merge commit';
  return `${merge.targetBranch} ${how}: ${merge.previousSha.slice(0, 12)} → ${merge.mergedSha.slice(0, 12)}`;
}

/**
 * CHG-2 in the terminal: `publish <conversation>` pushes the conversation's branch and opens or
 * updates its pull request (one approval for both; `--draft` prints the written title and body
 * without sending anything), `merge <conversation> --into <branch>` merges it into a local branch.
 * The same API as the web app.
 */
export function registerPublishCommands(program: Command, context: OperatorCommandContext): void {
  const withWorkspace = async (options: { workspace?: string }) => {
    const api = await context.client();
    const workspace = await context.resolveWorkspace(api, options.workspace);
    return { api, base: `/api/workspaces/${workspace.id}` };
  };
  program
    .command('publish <conversationId>')
    .description("push the conversation's branch to the forge and open or update its pull request (one approval covers both)")
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--title <title>', 'the pull request title (default: written from the conversation)')
    .option('--body <body>', 'the pull request body (default: written from the conversation)')
    .option('--base <branch>', 'the branch to merge into (default: the branch checked out in the repository)')
    .option('--draft', 'print the written title and body and send nothing')
    .option('--json', 'print JSON')
    .action(async (conversationId: string, options: { workspace?: string; title?: string; body?: string; base?: string; draft?: boolean; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const path = `${base}/conversations/${encodeURIComponent(conversationId)}`;
      if (options.draft) {
        const draft = await api.request<PublishDraft>('GET', `${path}/publish/draft${options.base ? `?base=${encodeURIComponent(options.base)}` : ''}`);
        if (options.json) return out(JSON.stringify(draft, null, 2));
        out(`${draft.headBranch} → ${draft.owner}/${draft.repo} (${draft.remoteName}) into ${draft.baseBranch}`);
        out(`title: ${draft.title}`);
        return out(`\n${draft.body}`);
      }
      const body = { ...(options.title !== undefined ? { title: options.title } : {}), ...(options.body !== undefined ? { body: options.body } : {}), ...(options.base !== undefined ? { base: options.base } : {}) };
      const publication = await api.request<ConversationPublication>('POST', `${path}/publish`, body);
      out(options.json ? JSON.stringify(publication, null, 2) : describePublication(publication));
    });
  program
    .command('merge <conversationId>')
    .description("merge the conversation's branch into a branch of your repository: fast-forward when possible, else a merge commit; refused on conflicts, never forced")
    .requiredOption('--into <branch>', 'the branch to merge into')
    .option('--ff-only', 'refuse rather than make a merge commit')
    .option('--expected-sha <commit>', 'refuse if the branch is no longer at this commit')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--json', 'print JSON')
    .action(async (conversationId: string, options: { workspace?: string; into: string; ffOnly?: boolean; expectedSha?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const body = { into: options.into, ...(options.ffOnly ? { ffOnly: true } : {}), ...(options.expectedSha ? { expectedSha: options.expectedSha } : {}) };
      const merged = await api.request<ConversationMerge>('POST', `${base}/conversations/${encodeURIComponent(conversationId)}/merge`, body);
      out(options.json ? JSON.stringify(merged, null, 2) : describeMerge(merged));
    });
}
