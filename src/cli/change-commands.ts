import type { Command } from 'commander';
import type { ChangeDiff, ChangedFile, ConversationChanges } from '../schemas/changes.js';
import type { ApiClient } from './api-client.js';
import type { OperatorCommandContext } from './operator-commands.js';
import { printable } from './terminal-text.js';

const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** Files fetched per request while the CLI reads every page (the API's most). */
const PAGE = 1000;

const STATUS_LETTER: Record<ChangedFile['status'], string> = { added: 'A', removed: 'D', modified: 'M', renamed: 'R', copied: 'C', typeChanged: 'T' };

/**
 * A path the agent chose, safe for a terminal (SEC-2): shown as it is when it prints as itself, else
 * as a JSON string, so a newline or an escape sequence in a name reads as `\n` rather than acting.
 */
export function shownPath(path: string): string {
  return printable(path) === path ? path : JSON.stringify(path);
}

function fileLine(file: ChangedFile): string {
  const name = file.oldPath ? `${shownPath(file.oldPath)} → ${shownPath(file.path)}` : shownPath(file.path);
  const counts = file.binary ? `binary ${file.sizeBefore ?? '-'} → ${file.sizeAfter ?? '-'} bytes` : `+${file.additions} -${file.deletions}`;
  return `${STATUS_LETTER[file.status]}  ${name}  ${counts}`;
}

/** The listing with every page of files read (a 2,000-file change is two requests). */
async function allChanges(api: ApiClient, path: string, turn: number | undefined): Promise<ConversationChanges> {
  const query = (offset: number) => `${path}?${new URLSearchParams({ offset: String(offset), limit: String(PAGE), ...(turn ? { turn: String(turn) } : {}) })}`;
  const first = await api.request<ConversationChanges>('GET', query(0));
  const files = [...first.files];
  while (files.length < first.page.total) {
    const next = await api.request<ConversationChanges>('GET', query(files.length));
    if (next.files.length === 0) break;
    files.push(...next.files);
  }
  return { ...first, files, page: { offset: 0, limit: files.length, total: first.page.total } };
}

/**
 * CHG-1 in the terminal: `changes <conversation>` prints what the conversation changed against its
 * base (uncommitted work included) — the files with counts and totals, then the diff (capped as the
 * API caps it); `--stat` the list only, `--json` the API's answer, `--turn N` one turn.
 */
export function registerChangeCommands(program: Command, context: OperatorCommandContext): void {
  program
    .command('changes <conversationId>')
    .description('what a conversation changed against its base, in total or for one turn: files with +/- counts, totals and the diff')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--stat', 'the files and totals only, no diff')
    .option('--json', 'print the changes as JSON (every file)')
    .option('--turn <n>', 'one turn (1 = the first) instead of the total', (value: string) => {
      if (!/^[1-9]\d*$/.test(value)) throw new Error(`--turn takes a turn number from 1, not ${JSON.stringify(value)}`);
      return Number(value);
    })
    .action(async (conversationId: string, options: { workspace?: string; stat?: boolean; json?: boolean; turn?: number }) => {
      const api = await context.client();
      const workspace = await context.resolveWorkspace(api, options.workspace);
      const path = `/api/workspaces/${workspace.id}/conversations/${encodeURIComponent(conversationId)}/changes`;
      const changes = await allChanges(api, path, options.turn);
      if (options.json) return out(JSON.stringify(changes, null, 2));
      const scope = changes.turn ? `turn ${changes.turn} of ${changes.turns.length}` : `all ${changes.turns.length} turn(s), against base ${changes.baseSha.slice(0, 12)}`;
      out(`${changes.branch}: ${scope}${changes.live ? ' (the checkout now, uncommitted work included)' : ''}`);
      for (const file of changes.files) out(fileLine(file));
      const { files, additions, deletions, binary } = changes.totals;
      out(`${files} file(s) changed, +${additions} -${deletions}${binary ? `, ${binary} binary` : ''}`);
      if (options.stat || files === 0) return;
      const diff = await api.request<ChangeDiff>('GET', `${path}/diff?${new URLSearchParams({ from: changes.from, to: changes.to })}`);
      out('');
      // File contents are the agent's: escape sequences are made harmless, lines kept.
      process.stdout.write(printable(diff.diff, { keepNewlines: true }));
      if (diff.truncated) out(`[diff cut: ${diff.truncated}; read one file with the API's ?path= or the web app]`);
    });
}
