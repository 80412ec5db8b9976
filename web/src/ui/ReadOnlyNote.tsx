import type { HeldRole } from '../settings/people/people-hooks';

/**
 * TEAM-2: said where a page leaves out what this person's role cannot do, so a missing button reads
 * as a decision about their role rather than a broken page. `needs` is the least role that could.
 */
export function ReadOnlyNote({ role, needs, what, subject = 'this workspace' }: { role: HeldRole | null; needs: 'member' | 'admin'; what: string; subject?: string }) {
  if (!role) return null;
  const reads = role === 'viewer' ? `You can read ${subject}` : `You are a ${role} here`;
  return (
    <p className="muted small read-only-note" data-testid="read-only-note">
      {reads}; {what} needs the {needs} role.
    </p>
  );
}
