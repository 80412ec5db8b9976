import { paths } from '../app/router';
import { Link } from '../ui/link';

/** Settings → Workspace → (Agents | General | Policy | MCP servers | Budgets | Notifications | People | Audit log). */
export function SettingsNav({ ws, active }: { ws: string; active: 'agents' | 'general' | 'policy' | 'mcp' | 'budgets' | 'notifications' | 'people' | 'audit' }) {
  return (
    <nav className="subnav" aria-label="Workspace settings">
      <span className="subnav-title">Settings › Workspace</span>
      <Link to={paths.agents(ws)} className={active === 'agents' ? 'active' : undefined} aria-current={active === 'agents' ? 'page' : undefined}>
        Agents
      </Link>
      <Link to={paths.general(ws)} className={active === 'general' ? 'active' : undefined} aria-current={active === 'general' ? 'page' : undefined}>
        General
      </Link>
      <Link to={paths.policy(ws)} className={active === 'policy' ? 'active' : undefined} aria-current={active === 'policy' ? 'page' : undefined}>
        Policy
      </Link>
      <Link to={paths.mcpServers(ws)} className={active === 'mcp' ? 'active' : undefined} aria-current={active === 'mcp' ? 'page' : undefined}>
        MCP servers
      </Link>
      <Link to={paths.budgets(ws)} className={active === 'budgets' ? 'active' : undefined} aria-current={active === 'budgets' ? 'page' : undefined}>
        Budgets
      </Link>
      <Link to={paths.notifications(ws)} className={active === 'notifications' ? 'active' : undefined} aria-current={active === 'notifications' ? 'page' : undefined}>
        Notifications
      </Link>
      <Link to={paths.people(ws)} className={active === 'people' ? 'active' : undefined} aria-current={active === 'people' ? 'page' : undefined}>
        People
      </Link>
      <Link to={paths.audit(ws)} className={active === 'audit' ? 'active' : undefined} aria-current={active === 'audit' ? 'page' : undefined}>
        Audit log
      </Link>
    </nav>
  );
}
