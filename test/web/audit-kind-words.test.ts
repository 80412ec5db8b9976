import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BudgetAlertState } from '../../src/schemas/budget.js';
import { AUDIT_FAMILIES, AUDIT_KINDS, auditKindWord } from '../../web/src/settings/audit/audit-kind-words.js';

const SOURCE = path.resolve(__dirname, '../../src');

/** Every `.ts` file under the server's source. */
async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? sourceFiles(path.join(dir, entry.name)) : Promise.resolve(entry.name.endsWith('.ts') ? [path.join(dir, entry.name)] : []))));
  return nested.flat();
}

/**
 * Kinds written from a template (`approval.${status}`): what each can become, from the values the
 * service passes. A new template family fails the test until it is listed here and given words.
 */
const TEMPLATE_KINDS: Record<string, readonly string[]> = {
  approval: ['approved', 'rejected'],
  budget: BudgetAlertState.options.filter((state) => state !== 'open'),
  orchestration: ['rejected', 'cancelled'],
};

/** Every audit kind the server can write (TEAM-3): dotted `kind:` codes found in its source. */
async function kindsTheServerWrites(): Promise<string[]> {
  const kinds = new Set<string>();
  for (const file of await sourceFiles(SOURCE)) {
    const text = await readFile(file, 'utf8');
    for (const match of text.matchAll(/kind: '([a-z_]+\.[a-z_]+)'/g)) kinds.add(match[1]!);
    for (const match of text.matchAll(/kind: `([a-z_]+)\.\$\{/g)) {
      const family = match[1]!;
      const acts = TEMPLATE_KINDS[family];
      if (!acts) throw new Error(`${path.relative(SOURCE, file)} writes audit kinds "${family}.…" from a template: list what they can be in TEMPLATE_KINDS`);
      for (const act of acts) kinds.add(`${family}.${act}`);
    }
  }
  return [...kinds].sort();
}

/** Words, not a code: no dots, no underscores, a capital first letter. */
const READABLE = /^[A-Z][^._]*$/;

describe('audit log kinds read as words', () => {
  it('every kind the server writes has its own words in the list the page and its filter use', async () => {
    const written = await kindsTheServerWrites();
    expect(written.length).toBeGreaterThan(20);
    const missing = written.filter((kind) => !AUDIT_KINDS.includes(kind));
    expect(missing).toEqual([]);
    for (const kind of written) expect(auditKindWord(kind), kind).toMatch(READABLE);
    expect(auditKindWord('person.role_changed_by_provider')).toBe('Role changed by sign-in provider');
    expect(auditKindWord('agent.created')).toBe('Agent created');
  });

  it('every family the filter offers reads as words', () => {
    for (const family of AUDIT_FAMILIES) expect(auditKindWord(family), family).toMatch(READABLE);
  });

  it('a kind the list does not know yet reads as words, never as the code', () => {
    expect(auditKindWord('widget.colour_changed')).toBe('Widget: colour changed');
    expect(auditKindWord('agent.renamed')).toBe('Agents: renamed');
    expect(auditKindWord('mystery')).toBe('Mystery');
  });
});
