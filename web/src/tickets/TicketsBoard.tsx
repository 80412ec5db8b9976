import { errorMessage } from '../api/client';
import { useAgents } from '../api/hooks';
import { navigate, paths } from '../app/router';
import { Link } from '../ui/link';
import { Empty, ErrorState, FieldError, Loading } from '../ui/states';
import { ticketStatusWord } from '../ui/words';
import { TICKET_COLUMNS, useMoveTicket, useProjects, useTickets, type Project, type Ticket } from './tickets-api';
import { useState } from 'react';
import { useMe, useWorkspaceRole } from '../settings/people/people-hooks';
import { TicketOwner } from './TicketOwner';

/**
 * The tickets board (ORC-4, UI): one column per ticket status, per project; each card shows what it
 * depends on (and whether that is done) and links to the review, orchestration and pipeline node it
 * belongs to. Moving a card goes through the tickets service (PATCH), which validates and publishes.
 */
export function TicketsBoard({ ws, projectId }: { ws: string; projectId: string | null }) {
  const projects = useProjects(ws);
  const tickets = useTickets(ws, projectId);
  const agents = useAgents(ws);
  const move = useMoveTicket(ws);
  const project = projects.data?.projects.find((candidate) => candidate.id === projectId) ?? null;
  const names = new Map((agents.data?.agents ?? []).map((agent) => [agent.id, agent.name]));
  const me = useMe().data;
  const { canDecide } = useWorkspaceRole(ws);
  // AG-4: "Mine" keeps the tickets this person owns (filtered here, so a live update moves them in and out at once).
  const [mine, setMine] = useState(false);
  const all = (tickets.data?.tickets ?? []).filter((ticket) => !mine || ticket.assigneePersonId === me?.id);
  const byId = new Map(all.map((ticket) => [ticket.id, ticket]));

  return (
    <main className="page tickets-page" aria-label="Tickets">
      <div className="tickets-head">
        <h2>Tickets</h2>
        <label className="inline small">
          Project
          <select aria-label="Project" value={projectId ?? ''} onChange={(event) => navigate(paths.tickets(ws, event.target.value || undefined))}>
            <option value="">All tickets</option>
            {(projects.data?.projects ?? []).map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {candidate.name}
              </option>
            ))}
          </select>
        </label>
        {project ? <ProjectLinks ws={ws} project={project} /> : null}
        <label className="inline small">
          <input type="checkbox" checked={mine} onChange={(event) => setMine(event.target.checked)} />
          Mine
        </label>
      </div>
      {move.isError ? <FieldError message={errorMessage(move.error)} /> : null}
      {tickets.isPending ? (
        <Loading label="Loading tickets…" />
      ) : tickets.isError ? (
        <ErrorState error={tickets.error} what="tickets" retry={() => void tickets.refetch()} />
      ) : all.length === 0 ? (
        <Empty title="No tickets here yet" />
      ) : (
        <div className="ticket-board" data-testid="ticket-board">
          {TICKET_COLUMNS.map((status) => {
            const column = all.filter((ticket) => ticket.status === status);
            return (
              <section key={status} className="ticket-column" data-testid="ticket-column" data-status={status} aria-label={`${ticketStatusWord(status)} (${column.length})`}>
                <h3>
                  {ticketStatusWord(status)} <span className="muted">{column.length}</span>
                </h3>
                {column.map((ticket) => (
                  <TicketCard key={ticket.id} ws={ws} ticket={ticket} byId={byId} assignee={ticket.assigneeAgentId ? (names.get(ticket.assigneeAgentId) ?? ticket.assigneeAgentId) : null} canChange={canDecide} project={project} moving={move.isPending} onMove={(next) => move.mutate({ ticketId: ticket.id, status: next })} />
                ))}
              </section>
            );
          })}
        </div>
      )}
    </main>
  );
}

function ProjectLinks({ ws, project }: { ws: string; project: Project }) {
  return (
    <span className="inline small" data-testid="project-links">
      {project.conversationId ? <Link to={paths.conversation(ws, project.conversationId)}>orchestration</Link> : null}
      {project.pipelineRunId ? <Link to={paths.pipelineRun(ws, project.pipelineRunId)}>pipeline run</Link> : null}
    </span>
  );
}

function TicketCard({
  ws,
  ticket,
  byId,
  assignee,
  canChange,
  project,
  moving,
  onMove,
}: {
  ws: string;
  ticket: Ticket;
  byId: Map<string, Ticket>;
  assignee: string | null;
  canChange: boolean;
  project: Project | null;
  moving: boolean;
  onMove: (status: string) => void;
}) {
  // The server says what still blocks: a done dependency does not, even one outside this board's filter.
  const waitingOn = ticket.waitingOn;
  return (
    <article className="card ticket-card" data-testid="ticket-card" data-ticket-id={ticket.id} data-status={ticket.status}>
      <strong className="ticket-title">{ticket.title}</strong>
      <TicketOwner ws={ws} ticket={ticket} agentName={assignee} canChange={canChange} />
      {ticket.dependsOn.length > 0 ? (
        <div className="small ticket-deps" data-testid="ticket-deps">
          depends on{' '}
          {ticket.dependsOn.map((id, index) => {
            const dependency = byId.get(id);
            return (
              <span key={id} className={dependency?.status === 'done' ? 'dep-done' : 'dep-open'}>
                {index > 0 ? ', ' : ''}
                {dependency?.title ?? id}
                {dependency ? ` (${ticketStatusWord(dependency.status)})` : ''}
              </span>
            );
          })}
          {waitingOn.length > 0 ? <span className="muted"> · waiting on {waitingOn.length}</span> : null}
        </div>
      ) : null}
      <div className="inline small ticket-links">
        {ticket.reviewId ? <Link to={paths.reviews(ws, ticket.reviewId)}>review</Link> : null}
        {project?.pipelineRunId && ticket.nodeKey && ticket.projectId === project.id ? <Link to={paths.pipelineRun(ws, project.pipelineRunId, ticket.nodeKey)}>its run node</Link> : null}
        {project?.conversationId && ticket.projectId === project.id ? <Link to={paths.conversation(ws, project.conversationId)}>orchestration</Link> : null}
        {ticket.planId ? <span className="muted">plan step {ticket.nodeKey}</span> : null}
      </div>
      <label className="inline small">
        Move to
        <select aria-label={`Move ${ticket.title}`} value={ticket.status} disabled={moving || !canChange} onChange={(event) => onMove(event.target.value)}>
          {TICKET_COLUMNS.map((status) => (
            <option key={status} value={status}>
              {ticketStatusWord(status)}
            </option>
          ))}
        </select>
      </label>
    </article>
  );
}
