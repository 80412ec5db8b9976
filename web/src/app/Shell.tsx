import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { openWorkspaceStream, type LiveRole, type StreamStatus } from '../api/events';
import { useWorkspaces } from '../api/hooks';
import { useInbox } from '../api/inbox-hooks';
import { AgentsPage } from '../pages/AgentsPage';
import { ConversationsPage } from '../pages/ConversationsPage';
import { GeneralSettingsPage } from '../pages/GeneralSettingsPage';
import { HonestyPage } from '../pages/HonestyPage';
import { InboxPage } from '../pages/InboxPage';
import { NotFoundPage } from '../pages/NotFoundPage';
import { OrgChartPage } from '../pages/OrgChartPage';
import { PolicyPage } from '../pages/PolicyPage';
import { McpServersPage } from '../mcp/McpServersPage';
import { BudgetSettingsPage } from '../costs/BudgetSettingsPage';
import { NotificationSettingsPage } from '../settings/notifications/NotificationSettingsPage';
import { PeopleSettingsPage } from '../settings/people/PeopleSettingsPage';
import { AuditLogPage } from '../settings/audit/AuditLogPage';
import { RunPage } from '../pages/RunPage';
import { RunsPage } from '../pages/RunsPage';
import { SkillsPage } from '../skills/SkillsPage';
import { ErrorBoundary } from '../ui/ErrorBoundary';
import { Link } from '../ui/link';
import { Empty, ErrorState, Loading } from '../ui/states';
import { PresenceBeacon } from './presence-heartbeat';
import { match, navigate, paths, useLocation } from './router';
import { WorkspaceSwitcher } from './WorkspaceSwitcher';
import { ReviewsPage } from '../review/ReviewsPage';
import { PipelineEditorPage } from '../pipelines/PipelineEditor';
import { PipelineRunPage } from '../pipelines/PipelineRunPage';
import { PipelinesPage } from '../pipelines/PipelinesPage';
import { TicketsBoard } from '../tickets/TicketsBoard';

// The Costs page brings its chart library (uPlot): loaded when it is opened, not with every page.
const CostsPage = lazy(() => import('../costs/CostsPage'));

/** Which section a path belongs to, and its parameters. */
function route(path: string) {
  const tries: Array<[string, string]> = [
    ['conversation', '/w/:ws/c/:conversationId'],
    ['space', '/w/:ws/s/:spaceId'],
    ['inbox', '/w/:ws/inbox'],
    ['agents', '/w/:ws/settings/agents'],
    ['agent', '/w/:ws/settings/agents/:agentId'],
    ['general', '/w/:ws/settings/general'],
    ['policy', '/w/:ws/settings/policy'],
    ['mcpServers', '/w/:ws/settings/mcp-servers'],
    ['budgets', '/w/:ws/settings/budgets'],
    ['notifications', '/w/:ws/settings/notifications'],
    ['people', '/w/:ws/settings/people'],
    ['audit', '/w/:ws/settings/audit'],
    ['settings', '/w/:ws/settings'],
    ['org', '/w/:ws/org'],
    ['run', '/w/:ws/runs/:runId'],
    ['runs', '/w/:ws/runs'],
    ['honesty', '/w/:ws/honesty'],
    ['reviews', '/w/:ws/reviews'],
    ['review', '/w/:ws/reviews/:reviewId'],
    ['skills', '/w/:ws/skills'],
    ['pipelineNew', '/w/:ws/pipelines/new'],
    ['pipelineEdit', '/w/:ws/pipelines/:pipelineId/edit'],
    ['pipelines', '/w/:ws/pipelines'],
    ['pipelineRun', '/w/:ws/pipeline-runs/:runId'],
    ['tickets', '/w/:ws/tickets'],
    ['costs', '/w/:ws/costs'],
    ['home', '/w/:ws'],
  ];
  for (const [name, pattern] of tries) {
    const params = match(pattern, path);
    if (params) return { name, params };
  }
  return { name: 'root', params: {} as Record<string, string> };
}

export function Shell({ token, onSignOut }: { token: string; onSignOut: () => void }) {
  const location = useLocation();
  const workspaces = useWorkspaces();
  const current = route(location.path);
  const ws = current.params.ws ?? null;
  const list = workspaces.data?.workspaces;
  // Phone layout: the navigation (main nav + spaces) is a drawer behind "Menu". It is open for the
  // path it was opened on, so any navigation closes it.
  const [navOpenAt, setNavOpenAt] = useState<string | null>(null);
  const navOpen = navOpenAt === location.path;
  const known = ws !== null && (list?.some((workspace) => workspace.id === ws) ?? false);

  // A path no page matches gets a real "not found" page; `/` and unknown workspaces go to the first workspace.
  const unmatched = current.name === 'root' && location.path !== '/';
  useEffect(() => {
    if (!list || list.length === 0 || unmatched) return;
    if (!ws || !known) navigate(paths.home(list[0]!.id), { replace: true });
  }, [list, ws, known, unmatched]);

  if (workspaces.isPending) return <Loading label="Loading workspaces…" />;
  if (workspaces.isError) return <ErrorState error={workspaces.error} what="workspaces" retry={() => void workspaces.refetch()} />;

  return (
    <div
      className={`app${navOpen ? ' nav-open' : ''}`}
      onClick={(event) => {
        // Following any link from the drawer closes it, even one to the page already shown.
        if (navOpen && (event.target as HTMLElement).closest('a')) setNavOpenAt(null);
      }}
    >
      <header className="topbar">
        <button type="button" className="btn btn-ghost btn-small nav-toggle" aria-expanded={navOpen} aria-label={navOpen ? 'Close menu' : 'Open menu'} onClick={() => setNavOpenAt(navOpen ? null : location.path)}>
          {navOpen ? '✕' : '☰'} Menu
        </button>
        <span className="brand">Control Center</span>
        <WorkspaceSwitcher current={known ? ws : null} />
        {known && ws ? <MainNav ws={ws} section={current.name} /> : <span className="spacer" />}
        {known && ws ? <LiveStatus ws={ws} token={token} /> : null}
        {known && ws ? <PresenceBeacon ws={ws} spaceId={current.params.spaceId ?? null} conversationId={current.params.conversationId ?? null} /> : null}
        <button type="button" className="btn btn-ghost btn-small" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <div className="app-body">
        {unmatched ? (
          <NotFoundPage ws={list?.[0]?.id ?? null} path={location.path} />
        ) : list && list.length === 0 ? (
          <main className="page">
            <Empty title="No workspaces yet">Create one with the workspace menu above.</Empty>
          </main>
        ) : known && ws ? (
          <ErrorBoundary key={location.path} what="this page">
            <Section ws={ws} name={current.name} params={current.params} search={location.search} />
          </ErrorBoundary>
        ) : (
          <Loading />
        )}
      </div>
    </div>
  );
}

function Section({ ws, name, params, search }: { ws: string; name: string; params: Record<string, string>; search: URLSearchParams }) {
  switch (name) {
    case 'conversation':
      return <ConversationsPage key={ws} ws={ws} conversationId={params.conversationId ?? null} spaceId={null} planId={search.get('plan')} />;
    case 'space':
      return <ConversationsPage key={ws} ws={ws} conversationId={null} spaceId={params.spaceId ?? null} planId={null} />;
    case 'inbox':
      return <InboxPage key={ws} ws={ws} />;
    case 'agents':
    case 'settings':
      return <AgentsPage key={ws} ws={ws} agentId={null} />;
    case 'agent':
      return <AgentsPage key={ws} ws={ws} agentId={params.agentId ?? null} />;
    case 'general':
      return <GeneralSettingsPage key={ws} ws={ws} />;
    case 'policy':
      return <PolicyPage key={ws} ws={ws} />;
    case 'mcpServers':
      return <McpServersPage key={ws} ws={ws} />;
    case 'budgets':
      return <BudgetSettingsPage key={ws} ws={ws} />;
    case 'notifications':
      return <NotificationSettingsPage key={ws} ws={ws} />;
    case 'people':
      return <PeopleSettingsPage key={ws} ws={ws} />;
    case 'audit':
      return <AuditLogPage key={ws} ws={ws} />;
    case 'run':
      return <RunPage key={`${ws}-${params.runId ?? ''}`} ws={ws} runId={params.runId ?? ''} />;
    case 'runs':
      return <RunsPage key={ws} ws={ws} filter={{ state: search.get('state') ?? undefined, agent: search.get('agent') ?? undefined, space: search.get('space') ?? undefined }} />;
    case 'org':
      return <OrgChartPage key={ws} ws={ws} />;
    case 'honesty':
      return <HonestyPage />;
    case 'reviews':
    case 'review':
      return <ReviewsPage key={ws} ws={ws} reviewId={params.reviewId ?? null} />;
    case 'skills':
      return <SkillsPage key={ws} ws={ws} />;
    case 'pipelines':
      return <PipelinesPage key={ws} ws={ws} />;
    case 'pipelineNew':
    case 'pipelineEdit':
      return <PipelineEditorPage key={`${ws}/${params.pipelineId ?? 'new'}`} ws={ws} pipelineId={params.pipelineId ?? null} />;
    case 'pipelineRun':
      return <PipelineRunPage key={`${ws}/${params.runId ?? ''}`} ws={ws} runId={params.runId ?? ''} initialNode={search.get('node')} />;
    case 'costs':
      return (
        <Suspense fallback={<Loading label="Loading costs…" />}>
          <CostsPage key={ws} ws={ws} />
        </Suspense>
      );
    case 'tickets':
      return <TicketsBoard key={ws} ws={ws} projectId={search.get('project')} />;
    default:
      return <ConversationsPage key={ws} ws={ws} conversationId={null} spaceId={null} planId={null} />;
  }
}

function MainNav({ ws, section }: { ws: string; section: string }) {
  // Everything waiting for a person, counted from the very list the Inbox shows (one read).
  const pending = useInbox(ws).data?.items.length ?? 0;
  const items: Array<{ to: string; label: string; active: boolean; count?: number }> = [
    { to: paths.home(ws), label: 'Conversations', active: ['home', 'space', 'conversation', 'root'].includes(section) },
    { to: paths.inbox(ws), label: 'Inbox', active: section === 'inbox', count: pending },
    { to: paths.runs(ws), label: 'Runs', active: section === 'runs' || section === 'run' },
    { to: paths.reviews(ws), label: 'Reviews', active: section === 'reviews' || section === 'review' },
    { to: paths.org(ws), label: 'Org chart', active: section === 'org' },
    { to: paths.honesty(ws), label: 'Honesty matrix', active: section === 'honesty' },
    { to: paths.skills(ws), label: 'Skills', active: section === 'skills' },
    { to: paths.pipelines(ws), label: 'Pipelines', active: ['pipelines', 'pipelineRun', 'pipelineNew', 'pipelineEdit'].includes(section) },
    { to: paths.tickets(ws), label: 'Tickets', active: section === 'tickets' },
    { to: paths.costs(ws), label: 'Costs', active: section === 'costs' },
    { to: paths.agents(ws), label: 'Settings', active: ['agents', 'agent', 'general', 'policy', 'mcpServers', 'budgets', 'notifications', 'people', 'settings'].includes(section) },
  ];
  return (
    <nav className="mainnav" aria-label="Main">
      {items.map((item) => (
        <Link key={item.label} to={item.to} className={item.active ? 'active' : undefined} aria-current={item.active ? 'page' : undefined}>
          {item.label}
          {item.count ? (
            <span className="count" aria-label={`${item.count} pending`}>
              {item.count}
            </span>
          ) : null}
        </Link>
      ))}
    </nav>
  );
}

/** Joins the workspace's live connection (one per browser, shared by its tabs) and shows whether it is connected. */
function LiveStatus({ ws, token }: { ws: string; token: string }) {
  const client = useQueryClient();
  const [status, setStatus] = useState<StreamStatus>('connecting');
  const [role, setRole] = useState<{ role: LiveRole; lastEventId: number | null }>({ role: 'follower', lastEventId: null });
  useEffect(() => openWorkspaceStream(client, ws, setStatus, (next, lastEventId) => setRole({ role: next, lastEventId })), [client, ws, token]);
  const label = status === 'open' ? 'Live' : status === 'connecting' ? 'Connecting…' : 'Reconnecting…';
  const title = role.role === 'leader' ? 'Live updates (server-sent events; this tab holds the connection)' : 'Live updates (server-sent events, shared with another tab)';
  return (
    <span
      className={`live live-${status}`}
      data-testid="live-status"
      data-live-role={role.role}
      data-last-event-id={role.lastEventId ?? ''}
      title={title}
    >
      <span className="presence-dot" aria-hidden="true" />
      {label}
    </span>
  );
}
