import { escapeHtml } from './join-page.js';

/**
 * The page a provider sign-in ends on when the group → role mapping gives the person no workspace
 * here (TEAM-1): it says so, and who can change it. No session is opened, so nothing else is reachable.
 */
export function noWorkspacePage(person: { name: string; providerName: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>No workspace for you here — Control Center</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}</style>
</head><body>
<h1>No workspace for you here</h1>
<p>${escapeHtml(person.providerName)} signed you in as <strong>${escapeHtml(person.name)}</strong>, but none of your groups there gives you a role in any workspace of this Control Center, so you are not signed in.</p>
<p>Ask the owner of this server to add one of your groups to the sign-in mapping, or to invite you into a workspace.</p>
</body></html>`;
}
