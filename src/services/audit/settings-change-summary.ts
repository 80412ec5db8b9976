import type { UpdateWorkspaceSettingsBody, WorkspaceSettings } from '../../schemas/settings.js';
import { fieldWords as settingWords } from './field-words.js';

/** Settings whose values are secrets: the audit log names the provider set or removed, never the value. */
const SECRET_MAPS = ['apiKeys', 'forgeTokens', 'runnerKeys', 'webSearchKeys'] as const;

const SECRET_WORDS: Record<(typeof SECRET_MAPS)[number], string> = { apiKeys: 'API key', forgeTokens: 'forge token', runnerKeys: 'runner key', webSearchKeys: 'web search key' };


/** "apiKeys.anthropic" → "the anthropic API key". */
function secretWords(entry: string): string {
  const [map = '', provider = ''] = entry.split('.');
  return `the ${provider} ${SECRET_WORDS[map as (typeof SECRET_MAPS)[number]] ?? settingWords(map)}`;
}

/** What a settings change did, for the audit log (TEAM-3): field names and key providers, no values. */
export function describeSettingsChange(current: WorkspaceSettings, change: UpdateWorkspaceSettingsBody, next: WorkspaceSettings): { summary: string; details: Record<string, unknown> } {
  const changed: string[] = [];
  const keysSet: string[] = [];
  const keysRemoved: string[] = [];
  for (const field of Object.keys(change) as Array<keyof UpdateWorkspaceSettingsBody>) {
    if (change[field] === undefined) continue;
    const secretMap = (SECRET_MAPS as readonly string[]).includes(field);
    if (!secretMap) {
      if (JSON.stringify(current[field as keyof WorkspaceSettings]) !== JSON.stringify(next[field as keyof WorkspaceSettings])) changed.push(field);
      continue;
    }
    for (const [provider, value] of Object.entries(change[field] as Record<string, string | null>)) {
      if (value === null) {
        if (provider in (current[field as keyof WorkspaceSettings] as Record<string, string>)) keysRemoved.push(`${field}.${provider}`);
      } else {
        keysSet.push(`${field}.${provider}`);
      }
    }
  }
  // The summary is read by people on the audit page: settings as words ("base urls", "the anthropic API key"); details keep the field names.
  const parts = [
    ...(changed.length > 0 ? [`changed ${changed.map(settingWords).join(', ')}`] : []),
    ...(keysSet.length > 0 ? [`set ${keysSet.map(secretWords).join(', ')}`] : []),
    ...(keysRemoved.length > 0 ? [`removed ${keysRemoved.map(secretWords).join(', ')}`] : []),
  ];
  return { summary: parts.length > 0 ? `Settings: ${parts.join('; ')}` : 'Settings saved unchanged', details: { changed, keysSet, keysRemoved } };
}
