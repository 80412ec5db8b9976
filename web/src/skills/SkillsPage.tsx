import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, errorMessage } from '../api/client';
import type { BuiltInSkill, InstalledSkill, InstallOutcome, SkillScanRecord, SkillSource, SourceListing, VerifyResult } from '@server/schemas/skill';
import { useAgents } from '../api/hooks';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { ReadOnlyNote } from '../ui/ReadOnlyNote';
import { Empty, ErrorState, Loading } from '../ui/states';
import { decisionWord, effectWord, scanRuleWord } from '../ui/words';

// Response shapes come from the server's zod schemas (type-only), so the page cannot drift from them.
type Outcome = InstallOutcome;
type Source = SkillSource;
type Installed = InstalledSkill;

/**
 * SKL-3: sources, browsing (names and descriptions are the source's untrusted text, shown as plain
 * text), install with the scan report, quarantine override, update with the diff, and lock status.
 */
export function SkillsPage({ ws }: { ws: string }) {
  const base = `/api/workspaces/${ws}/skills`;
  const client = useQueryClient();
  const installed = useQuery({ queryKey: ['skills', ws], queryFn: () => api.get<{ skills: Installed[] }>(base) });
  const verify = useQuery({ queryKey: ['skills', ws, 'verify'], queryFn: () => api.get<VerifyResult>(`${base}/verify`) });
  const sources = useQuery({ queryKey: ['skills', ws, 'sources'], queryFn: () => api.get<{ sources: Source[] }>(`${base}/sources`) });
  // Quarantines waiting for a decision come from the store, so they are still here after a reload.
  const quarantines = useQuery({ queryKey: ['skills', ws, 'quarantines'], queryFn: () => api.get<{ quarantines: SkillScanRecord[] }>(`${base}/quarantines`) });
  const builtIn = useQuery({ queryKey: ['skills', ws, 'built-in'], queryFn: () => api.get<{ skills: BuiltInSkill[] }>(`${base}/built-in`) });
  const agents = useAgents(ws);
  const [url, setUrl] = useState('');
  const [browsing, setBrowsing] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [reason, setReason] = useState('');
  const refresh = () => void client.invalidateQueries({ queryKey: ['skills', ws] });

  const addSource = useMutation({ mutationFn: () => api.post<Source>(`${base}/sources`, { url }), onSuccess: () => (setUrl(''), refresh()) });
  const install = useMutation({ mutationFn: (body: { sourceId: string; path: string }) => api.post<Outcome>(`${base}/install`, body), onSuccess: (result) => (setOutcome(result), refresh()) });
  const update = useMutation({ mutationFn: (name: string) => api.post<Outcome>(`${base}/${name}/update`, {}), onSuccess: (result) => (setOutcome(result), refresh()) });
  const override = useMutation({ mutationFn: (body: { reportId: string; reason: string }) => api.post<Outcome>(`${base}/overrides`, body), onSuccess: (result) => (setOutcome(result), setReason(''), refresh()) });
  const listing = useQuery({
    queryKey: ['skills', ws, 'browse', browsing],
    enabled: browsing !== null,
    queryFn: () => api.get<SourceListing>(`${base}/sources/${browsing}/skills`),
  });
  const statusOf = new Map(verify.data?.skills.map((skill) => [skill.name, skill.status]));
  // TEAM-2: installing, updating, overriding and adding sources are the admins'; others read and browse.
  const { role, canAdminister } = useWorkspaceRole(ws);

  return (
    <main className="page" data-testid="skills-page">
      <h2>Skills</h2>
      {canAdminister ? null : <ReadOnlyNote role={role} needs="admin" what="installing or updating skills" />}
      <section className="card" aria-labelledby="skills-installed">
        <h3 id="skills-installed">Installed</h3>
        <p className="small" data-testid="lock-status">
          {verify.isPending ? 'Checking skills-lock.json…' : verify.data?.ok ? 'skills-lock.json: all skills verified' : verify.data ? `skills-lock.json: problems found${verify.data.lockInSync ? '' : ' (lock out of sync)'}` : ''}
        </p>
        {installed.isPending ? (
          <Loading />
        ) : installed.isError ? (
          <ErrorState error={installed.error} what="Installed skills" retry={() => void installed.refetch()} />
        ) : installed.data.skills.length === 0 ? (
          <Empty title="No installed skills">Add a source below and install a skill from it.</Empty>
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>Skill</th>
                <th>Verdict</th>
                <th>Status</th>
                <th>Pinned</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {installed.data.skills.map((skill) => (
                <tr key={skill.name}>
                  <td data-label="Skill">{skill.name}</td>
                  <td data-label="Verdict">{skill.scanVerdict}{skill.overrideId ? ' (override)' : ''}</td>
                  <td data-label="Status">{statusOf.get(skill.name) ?? '…'}</td>
                  <td className="small" data-label="Pinned">{skill.commit.slice(0, 12)} {skill.skillPath}</td>
                  <td>
                    {canAdminister ? (
                      <button type="button" className="btn btn-small" onClick={() => update.mutate(skill.name)} disabled={update.isPending}>
                        Update {skill.name}
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      {outcome ? (
        <section className={`card${outcome.outcome === 'quarantined' ? ' warning-card' : ''}`} aria-labelledby="skills-report" data-testid="scan-report">
          <h3 id="skills-report">
            Scan of {outcome.scan.skillName}: {outcome.outcome} (verdict {outcome.scan.report.verdict})
          </h3>
          <ScanFindings scan={outcome.scan} />
          {outcome.diff ? (
            <p className="small" data-testid="update-diff">
              Added: {outcome.diff.added.join(', ') || 'none'}; removed: {outcome.diff.removed.join(', ') || 'none'}; changed: {outcome.diff.changed.join(', ') || 'none'}
            </p>
          ) : null}
          {outcome.outcome === 'quarantined' && canAdminister ? (
            <form
              onSubmit={(event) => {
                event.preventDefault();
                override.mutate({ reportId: outcome.scan.id, reason });
              }}
            >
              <label className="small">
                Override reason
                <input value={reason} onChange={(event) => setReason(event.target.value)} />
              </label>
              <button type="submit" className="btn btn-small" disabled={!reason.trim() || override.isPending}>
                Install anyway (operator override)
              </button>
            </form>
          ) : null}
        </section>
      ) : null}
      {(quarantines.data?.quarantines ?? [])
        .filter((scan) => scan.id !== outcome?.scan.id)
        .map((scan) => (
          <QuarantineReport key={scan.id} scan={scan} overriding={override.isPending} onOverride={canAdminister ? (reportId, why) => override.mutate({ reportId, reason: why }) : null} />
        ))}
      {[install, update, override, addSource].map((mutation, index) =>
        mutation.isError ? (
          <p key={index} className="error small" role="alert">
            {errorMessage(mutation.error)}
          </p>
        ) : null,
      )}

      <section className="card" aria-labelledby="skills-built-in" data-testid="built-in-skills">
        <h3 id="skills-built-in">Built in</h3>
        <p className="small muted">Shipped with Control Center and written into every workspace; the agents it seeds link to these.</p>
        {builtIn.isPending ? (
          <Loading />
        ) : builtIn.isError ? (
          <ErrorState error={builtIn.error} what="Built-in skills" retry={() => void builtIn.refetch()} />
        ) : (
          <table className="table">
            <thead>
              <tr>
                <th>Skill</th>
                <th>What it is for</th>
                <th>Linked by</th>
              </tr>
            </thead>
            <tbody>
              {builtIn.data.skills.map((skill) => (
                <tr key={skill.name} data-skill-name={skill.name}>
                  <td data-label="Skill">{skill.name}</td>
                  <td className="small" data-label="What it is for">{skill.description}</td>
                  <td className="small" data-label="Linked by">
                    {(agents.data?.agents ?? [])
                      .filter((agent) => agent.skills.includes(skill.name))
                      .map((agent) => agent.name)
                      .join(', ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="card" aria-labelledby="skills-sources">
        <h3 id="skills-sources">Sources</h3>
        {canAdminister ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            addSource.mutate();
          }}
        >
          <label className="small">
            Git URL or absolute path
            <input value={url} onChange={(event) => setUrl(event.target.value)} />
          </label>
          <button type="submit" className="btn btn-small" disabled={!url.trim() || addSource.isPending}>
            Add source
          </button>
        </form>
        ) : null}
        {sources.data?.sources.map((source) => (
          <div key={source.id}>
            <button type="button" className="btn btn-ghost btn-small" onClick={() => setBrowsing(source.id)}>
              Browse {source.url}
            </button>
          </div>
        ))}
        {browsing && listing.data ? (
          <table className="table" data-testid="source-listing">
            <thead>
              <tr>
                <th>Skill (as the source names it)</th>
                <th>Description (untrusted)</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {listing.data.skills.map((skill) => (
                <tr key={skill.skillPath}>
                  <td data-label="Skill">{skill.name}</td>
                  <td className="small" data-label="Description">{skill.valid ? skill.description : skill.problem}</td>
                  <td>
                    {canAdminister ? (
                      <button type="button" className="btn btn-small" disabled={!skill.valid || install.isPending} onClick={() => install.mutate({ sourceId: browsing, path: skill.skillPath })}>
                        Install {skill.skillPath}
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
    </main>
  );
}

/** A scan's rule version, commit, findings and capabilities. */
function ScanFindings({ scan }: { scan: SkillScanRecord }) {
  return (
    <>
      <p className="small muted">
        Rules {scan.report.rulesVersion}, commit {scan.commit.slice(0, 12)}
      </p>
      {scan.report.findings.length === 0 ? <p className="small">No findings.</p> : null}
      <ul className="small">
        {scan.report.findings.map((finding, index) => (
          <li key={index}>
            {/* The rule in words, then its id as a quoted name to look it up by. */}
            [{finding.severity}] {scanRuleWord(finding.ruleId)} · <code>{finding.ruleId}</code> — {finding.file}
            {finding.line ? `:${finding.line}` : ''} — {finding.message}
          </li>
        ))}
      </ul>
      {scan.report.capabilities.length > 0 ? (
        <p className="small">Capabilities: {scan.report.capabilities.map((capability) => `${capability.capability} (${effectWord(capability.effectClass)}: ${decisionWord(capability.decision)})`).join(', ')}</p>
      ) : null}
    </>
  );
}

/**
 * A quarantine that still waits for a decision (read from the store, so it survives a reload): shown
 * as a warning with its findings, and the operator's override next to it — for an admin only
 * (`onOverride` null: the findings alone).
 */
function QuarantineReport({ scan, overriding, onOverride }: { scan: SkillScanRecord; overriding: boolean; onOverride: ((reportId: string, reason: string) => void) | null }) {
  const [reason, setReason] = useState('');
  return (
    <section className="card warning-card" role="region" aria-label={`Quarantined: ${scan.skillName}`} data-testid="quarantine-report" data-report-id={scan.id}>
      <h3>Quarantined: {scan.skillName}</h3>
      <p className="small">The scan found what a skill must not do, so this version was not installed. Read the findings, then leave it or install it anyway.</p>
      <ScanFindings scan={scan} />
      {onOverride ? (
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onOverride(scan.id, reason.trim());
        }}
      >
        <label className="small">
          Override reason for {scan.skillName}
          <input value={reason} onChange={(event) => setReason(event.target.value)} />
        </label>
        <button type="submit" className="btn btn-small" disabled={!reason.trim() || overriding}>
          Install {scan.skillName} anyway
        </button>
      </form>
      ) : null}
    </section>
  );
}
