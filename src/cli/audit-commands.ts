import { InvalidArgumentError, type Command } from 'commander';
import type { AuditEntry, AuditPage } from '../schemas/audit.js';
import type { OperatorCommandContext } from './operator-commands.js';
import { resolvePerson } from './people-commands.js';
import { textTable } from './text-table.js';

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since 2h`, `30m`, `7d`, or an ISO time: the earliest act to show, as the ISO time the API takes. */
export function parseSince(value: string, now = Date.now()): string {
  const relative = /^(\d{1,5})([mhd])$/.exec(value);
  if (relative) return new Date(now - Number(relative[1]) * UNIT_MS[relative[2]!]!).toISOString();
  const at = Date.parse(value);
  if (/^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(at)) return new Date(at).toISOString();
  throw new InvalidArgumentError('give a time such as 2026-12-06T09:00:00Z, or a span back from now such as 30m, 2h or 7d');
}

/** Who did it, as a cell: a person's name, `agent <name>`, or `system`. */
function actorCell(entry: AuditEntry): string {
  return entry.actor.kind === 'agent' ? `agent ${entry.actor.name}` : entry.actor.name;
}

/** The most entries one command prints; the export (`audit.jsonl`) is for more. */
const MAX_SHOWN = 1000;

/**
 * `control-center audit` (TEAM-3): who did what in a workspace, newest first, as a table or JSON —
 * through the same API as the web app's Audit log page, so only an admin (or the owner) may read it.
 */
export function registerAuditCommands(program: Command, context: OperatorCommandContext): void {
  program
    .command('audit')
    .description('who did what in a workspace, newest first: approvals, policy and settings changes, roles, invitations, tokens')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--person <idNameOrEmail>', 'only what this person did')
    .option('--kind <kind>', 'only this kind of act (policy.rule_added) or family (policy)')
    .option('--since <time>', 'only acts since a time (ISO) or a span back from now (30m, 2h, 7d)', (value: string) => parseSince(value))
    .option('--limit <count>', `how many entries at most (up to ${MAX_SHOWN})`, (value: string) => {
      const count = Number(value);
      if (!Number.isInteger(count) || count < 1 || count > MAX_SHOWN) throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_SHOWN}`);
      return count;
    }, 100)
    .option('--json', 'print JSON')
    .action(async (options: { workspace?: string; person?: string; kind?: string; since?: string; limit: number; json?: boolean }) => {
      const api = await context.client();
      const workspace = await context.resolveWorkspace(api, options.workspace);
      const base = `/api/workspaces/${workspace.id}`;
      const query = new URLSearchParams();
      if (options.person) query.set('person', (await resolvePerson(api, base, options.person)).id);
      if (options.kind) query.set('kind', options.kind);
      if (options.since) query.set('from', options.since);
      const entries: AuditEntry[] = [];
      let cursor: string | null = null;
      do {
        const page: URLSearchParams = new URLSearchParams(query);
        page.set('limit', String(Math.min(500, options.limit - entries.length)));
        if (cursor) page.set('cursor', cursor);
        const answer: AuditPage = await api.request<AuditPage>('GET', `${base}/audit?${page.toString()}`);
        entries.push(...answer.entries);
        cursor = answer.nextCursor;
      } while (cursor && entries.length < options.limit);
      if (options.json) return console.log(JSON.stringify(entries, null, 2));
      if (entries.length === 0) return console.log('Nothing recorded matches.');
      const rows = entries.map((entry) => [entry.createdAt.replace('T', ' ').slice(0, 19), actorCell(entry), entry.kind, entry.summary]);
      for (const line of textTable([{ heading: 'WHEN (UTC)', max: 19 }, { heading: 'WHO', max: 30 }, { heading: 'KIND', max: 32 }, { heading: 'WHAT', max: 100 }], rows)) console.log(line);
    });
}
