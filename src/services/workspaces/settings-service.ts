import { nowIso } from '../../ids.js';
import type { AuditActor } from '../../schemas/audit.js';
import { HttpUrl } from '../../schemas/common.js';
import { WorkspaceSettings, type UpdateWorkspaceSettingsBody, type WorkspaceSettingsView } from '../../schemas/settings.js';
import { readWorkspaceSettings, writeWorkspaceSettings } from '../../store/repositories/settings-repository.js';
import { withAuditEntry } from '../audit/audit-act.js';
import { describeSettingsChange } from '../audit/settings-change-summary.js';
import type { EventBus } from '../event-bus.js';
import { providerSetup } from './provider-setup.js';
import type { WorkspaceService } from './workspace-service.js';
import type { ConfigPin } from '../../store/pinned-config-reads.js';

function mergeNullable(current: Record<string, string | undefined>, change: Record<string, string | null | undefined> | undefined) {
  const next: Record<string, string> = {};
  for (const [key, value] of Object.entries(current)) if (value !== undefined) next[key] = value;
  for (const [key, value] of Object.entries(change ?? {})) {
    if (value === null) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return next;
}

/** Per-workspace settings: model keys and base URLs (HAR-2), timeouts, delegation depth, concurrency. */
export class SettingsService {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly events: EventBus,
    /** The server's environment, where a provider's key or base URL comes from when settings lack it (shown by source, never by value). */
    private readonly env: Record<string, string | undefined> = {},
  ) {}

  /** `pin`: a run's preparation reads through its configuration pin (see pinnedRead). */
  async get(workspaceId: string, pin?: ConfigPin): Promise<WorkspaceSettings> {
    const { database } = await this.workspaces.handle(workspaceId);
    const settings = await readWorkspaceSettings(database.db, pin);
    // A base URL stored before they were limited to http(s) is ignored, never handed to a model client.
    settings.baseUrls = Object.fromEntries(Object.entries(settings.baseUrls).filter(([, url]) => HttpUrl.safeParse(url).success));
    settings.runnerBaseUrls = Object.fromEntries(Object.entries(settings.runnerBaseUrls).filter(([, url]) => HttpUrl.safeParse(url).success));
    return settings;
  }

  async view(workspaceId: string): Promise<WorkspaceSettingsView> {
    return this.toView(await this.get(workspaceId));
  }

  /** Saves a change; `actor` is who made it, recorded in the audit log with the change's field names, never a key (TEAM-3). */
  async update(workspaceId: string, change: UpdateWorkspaceSettingsBody, actor: AuditActor): Promise<WorkspaceSettingsView> {
    const current = await this.get(workspaceId);
    const { apiKeys, baseUrls, forgeTokens, runnerKeys, runnerBaseUrls, defaultModels, webSearchKeys, ...scalars } = change;
    const next = WorkspaceSettings.parse({
      ...current,
      ...Object.fromEntries(Object.entries(scalars).filter(([, value]) => value !== undefined)),
      apiKeys: mergeNullable(current.apiKeys, apiKeys),
      baseUrls: mergeNullable(current.baseUrls, baseUrls),
      forgeTokens: mergeNullable(current.forgeTokens, forgeTokens),
      runnerKeys: mergeNullable(current.runnerKeys, runnerKeys),
      runnerBaseUrls: mergeNullable(current.runnerBaseUrls, runnerBaseUrls),
      defaultModels: mergeNullable(current.defaultModels, defaultModels),
      webSearchKeys: mergeNullable(current.webSearchKeys, webSearchKeys),
      updatedAt: nowIso(),
    });
    const { database } = await this.workspaces.handle(workspaceId);
    const described = describeSettingsChange(current, change, next);
    await withAuditEntry(database.db, { kind: 'settings.changed', actor, workspaceId, subject: { type: 'workspace', id: workspaceId }, ...described }, (trx) => writeWorkspaceSettings(trx, next));
    const view = this.toView(next);
    this.events.publish(workspaceId, 'settings.updated', view);
    return view;
  }

  private toView(settings: WorkspaceSettings): WorkspaceSettingsView {
    return {
      ...settings,
      apiKeys: Object.fromEntries(Object.keys(settings.apiKeys).map((provider) => [provider, 'set' as const])),
      forgeTokens: Object.fromEntries(Object.keys(settings.forgeTokens).map((provider) => [provider, 'set' as const])),
      runnerKeys: Object.fromEntries(Object.keys(settings.runnerKeys).map((provider) => [provider, 'set' as const])),
      webSearchKeys: Object.fromEntries(Object.keys(settings.webSearchKeys).map((provider) => [provider, 'set' as const])),
      providerSetup: providerSetup(settings, this.env),
    };
  }
}
