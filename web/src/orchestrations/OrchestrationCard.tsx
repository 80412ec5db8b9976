import { useMemo, useState } from 'react';
import { errorMessage } from '../api/client';
import type { Agent } from '../api/types';
import { paths } from '../app/router';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { Badge } from '../ui/badges';
import { Link } from '../ui/link';
import { FieldError } from '../ui/states';
import { useOrchestrationAction, useRevisionDiff, type Orchestration } from './orchestration-hooks';
import { estimateLabel, formatUsd, statusTone, ticketLevels, toggleKey } from './orchestration-view';

/**
 * ORC-1..3 in the conversation: the proposal card — roles as an org chart under the orchestrator (new
 * hires marked), the sub-ticket tree by dependency level, budget and per-role estimates, the diff from
 * the previous revision, and the operator's Approve / Reject (a pinned revision, optionally a
 * dependency-closed subset).
 */
export function OrchestrationCard({ ws, orchestration, agents }: { ws: string; orchestration: Orchestration; agents: Agent[] }) {
  const { proposal } = orchestration;
  const action = useOrchestrationAction(ws);
  // TEAM-2: approving, rejecting and cancelling are a member's; a viewer reads the proposal.
  const { canDecide } = useWorkspaceRole(ws);
  const [selected, setSelected] = useState<Set<string>>(() => new Set(proposal.subTickets.map((ticket) => ticket.key)));
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const agentName = (id: string | undefined) => agents.find((agent) => agent.id === id)?.name ?? id ?? '?';
  const levels = useMemo(() => ticketLevels(proposal.subTickets), [proposal.subTickets]);
  const proposed = orchestration.status === 'proposed';
  const allSelected = selected.size === proposal.subTickets.length;
  const estimateOf = new Map(orchestration.estimates.map((entry) => [entry.roleKey, entry.estimate]));
  const memberOf = new Map(orchestration.members.map((member) => [member.roleKey, member]));

  return (
    <section className="orc-card" data-testid="orchestration-card" data-orchestration-id={orchestration.id}>
      <header className="orc-head">
        <span className="orc-icon" aria-hidden="true">
          ⬡
        </span>
        <strong className="orc-goal">{proposal.goal}</strong>
        <Badge tone={statusTone(orchestration.status)}>{orchestration.status}</Badge>
        <span className="muted small" data-testid="orc-revision">
          revision {orchestration.latestRevision}
        </span>
      </header>

      <div className="orc-section">
        <h4>Team</h4>
        <div className="orc-org" data-testid="orc-org">
          <div className="orc-org-root">{agentName(orchestration.orchestratorAgentId)} · orchestrator</div>
          <ul className="orc-org-roles">
            {proposal.roles.map((role) => {
              const estimate = estimateOf.get(role.roleKey);
              const member = memberOf.get(role.roleKey);
              return (
                <li key={role.roleKey} className="orc-role" data-testid="orc-role" data-role-key={role.roleKey}>
                  <div>
                    <strong>{role.title}</strong> <span className="muted small">({role.roleKey})</span>
                  </div>
                  <div>
                    {role.hire ? (
                      <>
                        <Badge tone="warn" title="Hired on approval; reports to the orchestrator">
                          new hire
                        </Badge>{' '}
                        {role.hire.name} — {role.hire.title}
                      </>
                    ) : (
                      agentName(role.agentId)
                    )}
                    {member ? <span className="muted small"> · {member.hired ? 'hired' : 'assigned'}</span> : null}
                  </div>
                  {estimate ? (
                    <div className="muted small" data-testid="orc-estimate">
                      estimate: {estimateLabel(estimate)}
                    </div>
                  ) : null}
                </li>
              );
            })}
          </ul>
        </div>
      </div>

      <div className="orc-section">
        <h4>Sub-tickets</h4>
        <ol className="orc-tree" data-testid="orc-tree">
          {levels.map((level, depth) => (
            <li key={depth} className="orc-level">
              <span className="muted small">level {depth + 1}</span>
              <ul>
                {level.map((ticket) => (
                  <li key={ticket.key} className="orc-ticket" data-testid="orc-ticket" data-key={ticket.key}>
                    {proposed && canDecide ? (
                      <input
                        type="checkbox"
                        aria-label={`Include ${ticket.key}`}
                        checked={selected.has(ticket.key)}
                        onChange={() => setSelected((current) => toggleKey(proposal.subTickets, current, ticket.key))}
                      />
                    ) : null}
                    <code>{ticket.key}</code> {ticket.title} <span className="muted small">· {ticket.roleKey}</span>
                    {ticket.dependsOn.length > 0 ? <span className="muted small"> · after {ticket.dependsOn.join(', ')}</span> : null}
                  </li>
                ))}
              </ul>
            </li>
          ))}
          {/* A plan's record (PLAN-7) has no synthesis step: it is done when its steps are. */}
          {proposal.synthesis ? (
            <li className="orc-level">
              <span className="muted small">last</span> synthesis by {proposal.synthesis.roleKey}
            </li>
          ) : null}
        </ol>
      </div>

      <div className="orc-section" data-testid="orc-budget">
        <h4>Budget</h4>
        <span>estimated {proposal.budget?.estimatedUsd !== undefined ? formatUsd(proposal.budget.estimatedUsd) : 'not given'}</span>
        {' · '}
        <span>cap {orchestration.maxUsd !== null ? formatUsd(orchestration.maxUsd) : 'none'}</span>
        {orchestration.spentUsd > 0 ? <span> · spent {formatUsd(orchestration.spentUsd)}</span> : null}
        {orchestration.budgetPaused ? <Badge tone="bad">paused: over budget</Badge> : null}
      </div>

      {orchestration.latestRevision > 1 ? <RevisionDiff ws={ws} orchestration={orchestration} /> : null}

      {orchestration.error ? <FieldError message={orchestration.error} /> : null}
      {orchestration.pipelineRunId || orchestration.projectId ? (
        <div className="inline small" data-testid="orc-links">
          {orchestration.pipelineRunId ? <Link to={paths.pipelineRun(ws, orchestration.pipelineRunId)}>pipeline run (live graph)</Link> : null}
          {orchestration.projectId ? <Link to={paths.tickets(ws, orchestration.projectId)}>tickets board</Link> : null}
        </div>
      ) : null}

      {!canDecide ? null : proposed ? (
        <footer className="orc-actions">
          <button
            type="button"
            className="btn btn-primary btn-small"
            disabled={action.isPending || selected.size === 0}
            onClick={() =>
              action.mutate({
                id: orchestration.id,
                action: 'approve',
                revision: orchestration.latestRevision,
                ...(allSelected ? {} : { subTicketKeys: [...selected] }),
              })
            }
          >
            {allSelected ? `Approve revision ${orchestration.latestRevision}` : `Approve ${selected.size} of ${proposal.subTickets.length}`}
          </button>
          {rejecting ? (
            <>
              <input aria-label="Reason for rejecting" value={reason} onChange={(event) => setReason(event.target.value)} placeholder="Why (optional)" />
              <button type="button" className="btn btn-small" disabled={action.isPending} onClick={() => action.mutate({ id: orchestration.id, action: 'reject', ...(reason ? { reason } : {}) })}>
                Reject
              </button>
            </>
          ) : (
            <button type="button" className="btn btn-small" onClick={() => setRejecting(true)}>
              Reject…
            </button>
          )}
        </footer>
      ) : ['approved', 'executing', 'synthesizing'].includes(orchestration.status) ? (
        <footer className="orc-actions">
          <button type="button" className="btn btn-small" disabled={action.isPending} onClick={() => action.mutate({ id: orchestration.id, action: 'cancel' })}>
            Cancel orchestration
          </button>
        </footer>
      ) : null}
      {action.isError ? <FieldError message={errorMessage(action.error)} /> : null}
    </section>
  );
}

const show = (value: unknown): string => (value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

function RevisionDiff({ ws, orchestration }: { ws: string; orchestration: Orchestration }) {
  const diff = useRevisionDiff(ws, orchestration);
  if (!diff.data) return diff.isError ? <FieldError message={errorMessage(diff.error)} /> : null;
  const { diff: changes, from } = diff.data;
  const lines: string[] = [];
  if (changes.goal) lines.push(`goal: ${show(changes.goal.before)} → ${show(changes.goal.after)}`);
  for (const [label, part] of [
    ['role', changes.roles],
    ['sub-ticket', changes.subTickets],
  ] as const) {
    for (const key of part.added) lines.push(`+ ${label} ${key}`);
    for (const key of part.removed) lines.push(`− ${label} ${key}`);
    for (const changed of part.changed) for (const change of changed.changes) lines.push(`~ ${label} ${changed.key} ${change.field}: ${show(change.before)} → ${show(change.after)}`);
  }
  if (changes.research) lines.push(`~ research: ${show(changes.research.before)} → ${show(changes.research.after)}`);
  for (const change of changes.synthesis) lines.push(`~ synthesis ${change.field}: ${show(change.before)} → ${show(change.after)}`);
  for (const change of changes.budget) lines.push(`~ budget ${change.field}: ${show(change.before)} → ${show(change.after)}`);
  return (
    <div className="orc-section" data-testid="orc-diff">
      <h4>Changes since revision {from}</h4>
      {lines.length === 0 ? (
        <span className="muted small">no changes</span>
      ) : (
        <ul className="orc-diff">
          {lines.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
