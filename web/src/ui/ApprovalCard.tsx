import { useState } from 'react';
import { errorMessage } from '../api/client';
import { useDecideApproval } from '../api/hooks';
import type { Agent, Approval } from '../api/types';
import { paths } from '../app/router';
import { Badge } from './badges';
import { approvalKindWord, effectWord } from './words';
import { Link } from './link';
import { FieldError } from './states';
import { useWorkspaceRole } from '../settings/people/people-hooks';
import { OthersLooking } from './OthersLooking';
import { ReadOnlyNote } from './ReadOnlyNote';


function summaryOf(approval: Approval): string | null {
  const request = approval.request;
  for (const key of ['summary', 'command', 'goal', 'action']) {
    const value = request[key];
    if (typeof value === 'string' && value.trim()) return value;
  }
  return null;
}

/** One approval: what is asked, by whom, and Approve / Reject (with reason) / remember. */
export function ApprovalCard({ ws, approval, agents, showLinks = true }: { ws: string; approval: Approval; agents?: Agent[]; showLinks?: boolean }) {
  const decide = useDecideApproval(ws);
  const { role, canDecide } = useWorkspaceRole(ws);
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const [remember, setRemember] = useState(false);
  const agent = agents?.find((entry) => entry.id === approval.agentId);
  const classes = Array.isArray(approval.request.classes) ? (approval.request.classes as unknown[]).map(String) : [];
  const toolName = typeof approval.request.toolName === 'string' ? approval.request.toolName : typeof approval.request.tool === 'string' ? approval.request.tool : null;
  const planId = typeof approval.request.planId === 'string' ? approval.request.planId : null;
  const summary = summaryOf(approval);
  const canRemember = approval.kind === 'tool';

  const send = (decision: 'approve' | 'reject') =>
    decide.mutate({ id: approval.id, decision, ...(decision === 'reject' && reason.trim() ? { reason: reason.trim() } : {}), ...(remember ? { remember: true } : {}) });

  return (
    <article className="approval" data-testid="approval" data-approval-id={approval.id} aria-label={`Approval: ${approval.title}`}>
      <header className="approval-header">
        <Badge tone="warn">{approvalKindWord(approval.kind)}</Badge>
        <strong className="approval-title">{approval.title}</strong>
        {agent ? <span className="muted small">by {agent.name}</span> : null}
        <span className="muted small">{new Date(approval.createdAt).toLocaleTimeString()}</span>
      </header>
      {summary || toolName || classes.length ? (
        <div className="approval-body">
          {toolName ? <code className="tool-name">{toolName}</code> : null}
          {summary ? <pre className="approval-summary">{summary}</pre> : null}
          {/* CHG-2: the pull request's text as it will be sent (edited in the conversation's "Where the work went" panel). */}
          {approval.kind === 'conversationPublish' && typeof approval.request.title === 'string' ? (
            <div data-testid="approval-pull-request">
              <div className="small">
                Title: <strong>{approval.request.title}</strong>
              </div>
              {typeof approval.request.body === 'string' ? <pre className="approval-summary">{approval.request.body}</pre> : null}
            </div>
          ) : null}
          {/* SEC-9: the ask comes from the rules of the run that started this work, not this space's own. */}
          {approval.request.inheritedFrom && typeof approval.request.explanation === 'string' ? <p className="small" data-testid="approval-inherited">{approval.request.explanation}</p> : null}
          {classes.length ? (
            <div className="approval-classes">
              {classes.map((effect) => (
                <Badge key={effect}>{effectWord(effect)}</Badge>
              ))}
            </div>
          ) : null}
        </div>
      ) : null}
      {showLinks && approval.conversationId ? (
        <div className="small">
          <Link to={paths.conversation(ws, approval.conversationId, planId ?? undefined)}>{planId ? 'Open plan in its conversation' : 'Open conversation'}</Link>
        </div>
      ) : null}
      <OthersLooking ws={ws} conversationId={approval.conversationId} />
      {/* TEAM-2: a viewer decides nothing, so is offered nothing to click (the server would answer 403). */}
      {canDecide ? null : <ReadOnlyNote role={role} needs="member" what="deciding" />}
      {canDecide ? (
      <div className="approval-actions">
        {rejecting ? (
          <form
            className="inline"
            onSubmit={(event) => {
              event.preventDefault();
              send('reject');
            }}
          >
            <input aria-label="Reason for rejecting" placeholder="Reason (passed to the agent)" value={reason} autoFocus onChange={(event) => setReason(event.target.value)} />
            <button type="submit" className="btn btn-danger btn-small" disabled={decide.isPending}>
              Reject
            </button>
            <button type="button" className="btn btn-ghost btn-small" onClick={() => setRejecting(false)}>
              Cancel
            </button>
          </form>
        ) : (
          <>
            <button type="button" className="btn btn-primary btn-small" onClick={() => send('approve')} disabled={decide.isPending}>
              Approve
            </button>
            <button type="button" className="btn btn-small" onClick={() => setRejecting(true)} disabled={decide.isPending}>
              Reject…
            </button>
          </>
        )}
        {canRemember ? (
          <label className="checkbox small">
            <input type="checkbox" checked={remember} onChange={(event) => setRemember(event.target.checked)} />
            Remember this choice
          </label>
        ) : null}
      </div>
      ) : null}
      {decide.isError ? <FieldError message={errorMessage(decide.error)} /> : null}
    </article>
  );
}
