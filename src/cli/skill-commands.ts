import type { Command } from 'commander';
import type { Workspace } from '../schemas/workspace.js';
import type { ApiClient } from './api-client.js';

interface Finding {
  ruleId: string;
  severity: string;
  file: string;
  line: number;
  message: string;
}

interface Outcome {
  outcome: 'installed' | 'quarantined' | 'unchanged';
  scan: { id: string; commit: string; computedHash: string; report: { verdict: string; rulesVersion: string; findings: Finding[] } };
  skill: { name: string; commit: string } | null;
  diff: { added: string[]; removed: string[]; changed: string[] } | null;
}

/** Prints a gate outcome (SKL-3): the verdict, every finding with rule, file and line, the diff of an update. */
function printOutcome(label: string, result: Outcome): void {
  const { report } = result.scan;
  console.log(`${label}: ${result.outcome} (scan ${result.scan.id}, verdict ${report.verdict}, rules ${report.rulesVersion}, commit ${result.scan.commit.slice(0, 12)})`);
  for (const finding of report.findings) console.log(`  [${finding.severity}] ${finding.ruleId} ${finding.file}${finding.line ? `:${finding.line}` : ''} — ${finding.message}`);
  if (result.diff) {
    for (const path of result.diff.added) console.log(`  + ${path}`);
    for (const path of result.diff.removed) console.log(`  - ${path}`);
    for (const path of result.diff.changed) console.log(`  ~ ${path}`);
  }
  if (result.outcome === 'quarantined') console.log(`  nothing was written; an operator may override with POST …/skills/overrides {"reportId": "${result.scan.id}", "reason": "…"}`);
}

/**
 * `control-center skill add <git-url> [--path p] [--ref r] | list | verify | update [name]` (SKL-3).
 * Exit codes: 0 done, 1 error, 2 quarantined or verify found problems.
 */
export function registerSkillCommands(program: Command, client: () => Promise<ApiClient>, resolveWorkspace: (api: ApiClient, idOrName?: string) => Promise<Workspace>): void {
  const skill = program.command('skill').description('install and verify skills from Git sources').option('-w, --workspace <idOrName>', 'workspace (default: the only one)');
  const workspaceOf = async (api: ApiClient) => resolveWorkspace(api, (skill.opts() as { workspace?: string }).workspace);

  skill
    .command('add <git-url>')
    .description('register the source if needed and install a skill folder through the scan')
    .option('--path <path>', 'the skill folder in the repository (default: the only skill there is)')
    .option('--ref <ref>', 'branch, tag or commit (default: the remote HEAD)')
    .action(async (url: string, options: { path?: string; ref?: string }) => {
      const api = await client();
      const target = await workspaceOf(api);
      const base = `/api/workspaces/${target.id}/skills`;
      const { sources } = await api.request<{ sources: Array<{ id: string; url: string }> }>('GET', `${base}/sources`);
      const source = sources.find((candidate) => candidate.url === url.trim()) ?? (await api.request<{ id: string }>('POST', `${base}/sources`, { url }));
      let path = options.path;
      if (!path) {
        const listing = await api.request<{ skills: Array<{ skillPath: string; valid: boolean; name: string }> }>('GET', `${base}/sources/${source.id}/skills${options.ref ? `?ref=${encodeURIComponent(options.ref)}` : ''}`);
        const valid = listing.skills.filter((candidate) => candidate.valid);
        if (valid.length !== 1) throw new Error(`the source has ${valid.length} skills; pass --path with one of: ${valid.map((candidate) => candidate.skillPath).join(', ') || '(none)'}`);
        path = valid[0]!.skillPath;
      }
      const result = await api.request<Outcome>('POST', `${base}/install`, { sourceId: source.id, path, ...(options.ref ? { ref: options.ref } : {}) });
      printOutcome(path, result);
      if (result.outcome === 'quarantined') process.exitCode = 2;
    });

  skill.command('list').description('installed skills with their pins and verdicts').action(async () => {
    const api = await client();
    const target = await workspaceOf(api);
    const { skills } = await api.request<{ skills: Array<{ name: string; scanVerdict: string; commit: string; source: string; skillPath: string }> }>('GET', `/api/workspaces/${target.id}/skills`);
    for (const item of skills) console.log(`${item.name.padEnd(28)} ${item.scanVerdict.padEnd(10)} ${item.commit.slice(0, 12)}  ${item.source} ${item.skillPath}`);
  });

  skill.command('verify').description('check installed folders against skills-lock.json (drifted, missing, quarantined)').action(async () => {
    const api = await client();
    const target = await workspaceOf(api);
    const result = await api.request<{ ok: boolean; lockInSync: boolean; skills: Array<{ name: string; status: string }> }>('GET', `/api/workspaces/${target.id}/skills/verify`);
    for (const item of result.skills) console.log(`${item.name.padEnd(28)} ${item.status}`);
    if (!result.lockInSync) console.log('skills-lock.json does not match the installed skills');
    console.log(result.ok ? 'ok' : 'problems found');
    if (!result.ok) process.exitCode = 2;
  });

  skill
    .command('update [name]')
    .description('fetch, scan and replace (only when the gate passes again); all installed skills without a name')
    .option('--ref <ref>', 'move to another branch, tag or commit')
    .action(async (name: string | undefined, options: { ref?: string }) => {
      const api = await client();
      const target = await workspaceOf(api);
      const base = `/api/workspaces/${target.id}/skills`;
      const names = name ? [name] : (await api.request<{ skills: Array<{ name: string }> }>('GET', base)).skills.map((item) => item.name);
      for (const each of names) {
        const result = await api.request<Outcome>('POST', `${base}/${encodeURIComponent(each)}/update`, options.ref ? { ref: options.ref } : {});
        printOutcome(each, result);
        if (result.outcome === 'quarantined') process.exitCode = 2;
      }
    });
}
