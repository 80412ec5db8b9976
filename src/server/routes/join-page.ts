/** Text made safe to place in HTML (element content and quoted attribute values). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The page an invitation link opens (TEAM-1): asks the newcomer's name and posts the one-time code
 * back. Plain HTML without script, so it works before the web app knows who you are.
 */
export function joinPage(invitation: { code: string; workspaceName: string; role: string; email: string | null }): string {
  const email = invitation.email ? escapeHtml(invitation.email) : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Join ${escapeHtml(invitation.workspaceName)} — Control Center</title>
<style>body{font:16px system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:1rem 0 .25rem}input{width:100%;padding:.5rem;font:inherit}button{margin-top:1.5rem;padding:.5rem 1rem;font:inherit}</style>
</head><body>
<h1>Join ${escapeHtml(invitation.workspaceName)}</h1>
<p>You are invited as <strong>${escapeHtml(invitation.role)}</strong>. This link works once.</p>
<form method="post" action="/auth/join">
<input type="hidden" name="code" value="${escapeHtml(invitation.code)}">
<label for="name">Your name</label><input id="name" name="name" required maxlength="100" autocomplete="name">
<label for="email">Email (optional)</label><input id="email" name="email" type="email" maxlength="254" value="${email}" autocomplete="email">
<button type="submit">Join</button>
</form>
</body></html>`;
}
