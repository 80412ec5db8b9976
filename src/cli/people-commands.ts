import { InvalidArgumentError, type Command } from 'commander';
import type { CreatedInvitation, Person } from '../schemas/people.js';
import type { ApiClient } from './api-client.js';
import type { OperatorCommandContext } from './operator-commands.js';
import { cell } from './terminal-text.js';

const ROLES = ['admin', 'member', 'viewer'] as const;

function parseRole(value: string): (typeof ROLES)[number] {
  if (!(ROLES as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${ROLES.join(', ')}`);
  return value as (typeof ROLES)[number];
}

/** A person of the workspace by id, name or email (names and emails compared without case). */
export async function resolvePerson(api: ApiClient, base: string, idNameOrEmail: string): Promise<Person> {
  const { people } = await api.request<{ people: Person[] }>('GET', `${base}/people`);
  const wanted = idNameOrEmail.toLowerCase();
  const found = people.filter((person) => person.id === idNameOrEmail || person.name.toLowerCase() === wanted || person.email?.toLowerCase() === wanted);
  if (found.length === 0) throw new Error(`no one called '${idNameOrEmail}' in this workspace`);
  if (found.length > 1) throw new Error(`'${idNameOrEmail}' names ${found.length} people: use an id (${found.map((person) => person.id).join(', ')})`);
  return found[0]!;
}

/**
 * `control-center people invite | list | remove | role` (TEAM-1, TEAM-2): the people of a workspace
 * from the terminal, through the same API as the web app and acting as whoever's token the CLI uses.
 */
export function registerPeopleCommands(program: Command, context: OperatorCommandContext): void {
  const withWorkspace = async (options: { workspace?: string }) => {
    const api = await context.client();
    const workspace = await context.resolveWorkspace(api, options.workspace);
    return { api, base: `/api/workspaces/${workspace.id}` };
  };
  const people = program.command('people').description('the people of a workspace: invite, list, set roles, remove');

  people
    .command('list', { isDefault: true })
    .description('list the people of a workspace with their roles')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--json', 'print JSON')
    .action(async (options: { workspace?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const list = (await api.request<{ people: Person[] }>('GET', `${base}/people`)).people;
      if (options.json) return console.log(JSON.stringify(list, null, 2));
      for (const person of list) console.log(`${person.id}  ${(person.owner ? 'owner' : (person.role ?? '-')).padEnd(6)}  ${cell(person.name, 40)}  ${person.email ?? ''}`.trimEnd());
    });

  people
    .command('invite <role>')
    .description('make a one-time invitation link into the workspace with a role (admin, member or viewer); it expires and works once')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--email <email>', 'who the invitation is for (shown on the form; the link is emailed when the owner configured SMTP)')
    .option('--json', 'print JSON')
    .action(async (role: string, options: { workspace?: string; email?: string; json?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const created = await api.request<CreatedInvitation>('POST', `${base}/invitations`, { role: parseRole(role), ...(options.email ? { email: options.email } : {}) });
      if (options.json) return console.log(JSON.stringify(created, null, 2));
      console.log(`Invitation as ${created.role}${created.email ? ` for ${created.email}` : ''}, works once until ${created.expiresAt}:`);
      console.log(`  ${created.url}`);
      console.log(created.delivery.note);
    });

  people
    .command('role <person> <role>')
    .description("set a person's role in the workspace (the owner only; never your own)")
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .action(async (who: string, role: string, options: { workspace?: string }) => {
      const { api, base } = await withWorkspace(options);
      const person = await resolvePerson(api, base, who);
      const updated = await api.request<Person>('PUT', `${base}/people/${person.id}/role`, { role: parseRole(role) });
      console.log(`${updated.name} is now ${updated.role} (their browser sessions ended)`);
    });

  people
    .command('remove <person>')
    .description('take a person out of the workspace; --everywhere removes their account (the owner only)')
    .option('-w, --workspace <idOrName>', 'workspace (default: the only one)')
    .option('--everywhere', 'remove the account: every token, session and role ends at once')
    .action(async (who: string, options: { workspace?: string; everywhere?: boolean }) => {
      const { api, base } = await withWorkspace(options);
      const person = await resolvePerson(api, base, who);
      if (options.everywhere) await api.request('DELETE', `/api/people/${person.id}`);
      else await api.request('DELETE', `${base}/people/${person.id}`);
      console.log(options.everywhere ? `Removed ${person.name}: their tokens and sessions no longer work.` : `${person.name} is no longer in this workspace.`);
    });
}
