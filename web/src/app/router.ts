import { useSyncExternalStore } from 'react';

/**
 * A tiny history router: the server answers every non-API path with index.html
 * (src/server/web-app.ts), so plain paths work on reload.
 */
const subscribers = new Set<() => void>();

function notify() {
  for (const subscriber of subscribers) subscriber();
}

/**
 * A page with unsaved edits (the agent and pipeline editors, through useUnsavedChangesGuard) registers a guard: it is asked before the app
 * navigates away, and on Back; returning false stays. The browser's own unload prompt covers reload.
 */
let leaveGuard: (() => boolean) | null = null;
let shownHref = window.location.pathname + window.location.search;

export function setLeaveGuard(guard: () => boolean): () => void {
  leaveGuard = guard;
  return () => {
    if (leaveGuard === guard) leaveGuard = null;
  };
}

window.addEventListener('popstate', () => {
  const next = window.location.pathname + window.location.search;
  if (leaveGuard && next !== shownHref && !leaveGuard()) {
    // Stay: put the page that is still shown back on top of the history.
    window.history.pushState(null, '', shownHref);
    return;
  }
  shownHref = next;
  notify();
});

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === window.location.pathname + window.location.search) return;
  if (leaveGuard && !leaveGuard()) return;
  shownHref = to;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  notify();
}

function subscribe(callback: () => void) {
  subscribers.add(callback);
  return () => subscribers.delete(callback);
}

const snapshot = () => window.location.pathname + window.location.search;

export interface Location {
  path: string;
  search: URLSearchParams;
}

export function useLocation(): Location {
  const href = useSyncExternalStore(subscribe, snapshot);
  const [path = '/', query = ''] = href.split('?');
  return { path, search: new URLSearchParams(query) };
}

/** `/w/:ws/c/:cv` against `/w/ws_1/c/cv_2` → `{ws: 'ws_1', cv: 'cv_2'}`, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const patternParts = pattern.split('/').filter(Boolean);
  const pathParts = path.split('/').filter(Boolean);
  if (patternParts.length !== pathParts.length) return null;
  const params: Record<string, string> = {};
  for (let index = 0; index < patternParts.length; index += 1) {
    const expected = patternParts[index]!;
    const actual = pathParts[index]!;
    if (expected.startsWith(':')) params[expected.slice(1)] = decodeURIComponent(actual);
    else if (expected !== actual) return null;
  }
  return params;
}

/** Workspace-scoped paths. */
/** The Runs page's filters, as its URL carries them (`?state=&agent=&space=`). */
export interface RunsFilter {
  state?: string | undefined;
  agent?: string | undefined;
  space?: string | undefined;
}

export const paths = {
  home: (ws: string) => `/w/${ws}`,
  space: (ws: string, spaceId: string) => `/w/${ws}/s/${spaceId}`,
  conversation: (ws: string, conversationId: string, planId?: string) => `/w/${ws}/c/${conversationId}${planId ? `?plan=${planId}` : ''}`,
  inbox: (ws: string) => `/w/${ws}/inbox`,
  agents: (ws: string, agentId?: string) => `/w/${ws}/settings/agents${agentId ? `/${agentId}` : ''}`,
  general: (ws: string) => `/w/${ws}/settings/general`,
  policy: (ws: string) => `/w/${ws}/settings/policy`,
  mcpServers: (ws: string) => `/w/${ws}/settings/mcp-servers`,
  budgets: (ws: string) => `/w/${ws}/settings/budgets`,
  notifications: (ws: string) => `/w/${ws}/settings/notifications`,
  people: (ws: string) => `/w/${ws}/settings/people`,
  audit: (ws: string) => `/w/${ws}/settings/audit`,
  costs: (ws: string) => `/w/${ws}/costs`,
  org: (ws: string) => `/w/${ws}/org`,
  run: (ws: string, runId: string) => `/w/${ws}/runs/${runId}`,
  runs: (ws: string, filter: RunsFilter = {}) => {
    const query = new URLSearchParams(Object.entries(filter).filter((entry): entry is [string, string] => Boolean(entry[1]))).toString();
    return `/w/${ws}/runs${query ? `?${query}` : ''}`;
  },
  honesty: (ws: string) => `/w/${ws}/honesty`,
  reviews: (ws: string, reviewId?: string) => `/w/${ws}/reviews${reviewId ? `/${reviewId}` : ''}`,
  skills: (ws: string) => `/w/${ws}/skills`,
  pipelines: (ws: string) => `/w/${ws}/pipelines`,
  pipelineNew: (ws: string) => `/w/${ws}/pipelines/new`,
  pipelineEdit: (ws: string, pipelineId: string) => `/w/${ws}/pipelines/${pipelineId}/edit`,
  pipelineRun: (ws: string, runId: string, nodeKey?: string) => `/w/${ws}/pipeline-runs/${runId}${nodeKey ? `?node=${encodeURIComponent(nodeKey)}` : ''}`,
  tickets: (ws: string, projectId?: string) => `/w/${ws}/tickets${projectId ? `?project=${encodeURIComponent(projectId)}` : ''}`,
};
