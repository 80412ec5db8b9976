import type { Command } from 'commander';
import type { ConversationRewind } from '../schemas/rewind.js';
import type { OperatorCommandContext } from './operator-commands.js';

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

function describeRewind(rewind: ConversationRewind): string {
  const checkout = rewind.checkpointCommit ? `checkout at ${rewind.checkpointCommit.slice(0, 12)}, what it held kept as ${rewind.archiveRef}` : 'no checkpoint since (no turn changed the checkout): only the history moved';
  const state = rewind.restoredAt ? `restored ${rewind.restoredAt.replace('T', ' ').slice(0, 19)}` : 'restorable';
  return `${rewind.id}  before ${rewind.messageId}  ${rewind.archivedMessages} message(s) archived  ${checkout}  ${state}`;
}

/**
 * CTX-3 in the terminal: `rewind to <conversation> <message>` returns the conversation to just before
 * that message (its checkout to the turn's checkpoint; later messages archived), `rewind list` shows
 * a conversation's rewinds, `rewind restore` undoes one. The same API as the web app.
 */
export function registerRewindCommands(program: Command, context: OperatorCommandContext): void {
  const withWorkspace = async (options: { workspace?: string }) => {
    const api = await context.client();
    const workspace = await context.resolveWorkspace(api, options.workspace);
    return { api, base: `/api/workspaces/${workspace.id}` };
  };
  const rewind = program.command('rewind').description('rewind a conversation to before one of its messages, list its rewinds, restore one');
  rewind
    .command('to <conversationId> <messageId>')
    .description('return the checkout to the checkpoint of the turn that message started and archive the messages from it on (refused while a run is active)')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--json', 'print the rewind as JSON')
    .action(async (conversationId: string, messageId: string, options: { workspace?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const made = await api.request<ConversationRewind>('POST', `${base}/conversations/${encodeURIComponent(conversationId)}/rewind`, { messageId });
      out(options.json ? JSON.stringify(made, null, 2) : `rewound: ${describeRewind(made)}`);
    });
  rewind
    .command('list <conversationId>')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--json', 'print JSON ({rewinds})')
    .action(async (conversationId: string, options: { workspace?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const { rewinds } = await api.request<{ rewinds: ConversationRewind[] }>('GET', `${base}/conversations/${encodeURIComponent(conversationId)}/rewinds`);
      if (options.json) return out(JSON.stringify({ rewinds }, null, 2));
      if (rewinds.length === 0) return out('No rewinds in this conversation.');
      for (const entry of rewinds) out(describeRewind(entry));
    });
  rewind
    .command('restore <conversationId> <rewindId>')
    .description('put the archived messages back and the checkout where it was before the rewind')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--json', 'print the rewind as JSON')
    .action(async (conversationId: string, rewindId: string, options: { workspace?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const restored = await api.request<ConversationRewind>('POST', `${base}/conversations/${encodeURIComponent(conversationId)}/rewinds/${encodeURIComponent(rewindId)}/restore`);
      out(options.json ? JSON.stringify(restored, null, 2) : `restored: ${describeRewind(restored)}`);
    });
}
