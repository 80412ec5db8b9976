import type { HonestyMatrix } from '../api/types';

/** The agent fields whose effect depends on the transport (TRUTH-1); the rest apply everywhere. */
export const TRANSPORT_DEPENDENT_FIELDS = ['persona', 'systemPrompt', 'skills', 'modelId', 'effort', 'contextSize'] as const;
export type TransportDependentField = (typeof TRANSPORT_DEPENDENT_FIELDS)[number];

export const FIELD_WORDS: Readonly<Record<TransportDependentField, string>> = {
  persona: 'persona',
  systemPrompt: 'agent instructions',
  skills: 'skills',
  modelId: 'model',
  effort: 'effort',
  contextSize: 'context size',
};

/**
 * How the editor treats one field for the chosen transport: `applies` (shown, with how it reaches the
 * runtime), `ignoredStored` (not honoured, but the agent carries a value stored before the server
 * refused it: shown so it can be cleared, marked as ignored), or `absent` (not honoured and empty:
 * not shown, listed in one sentence saying why).
 */
export type FieldApplicability = { kind: 'applies'; how: string | null } | { kind: 'ignoredStored' } | { kind: 'absent' };

export interface TransportFieldView {
  /** The transport's label ("Grok CLI"); null until the server's declarations are loaded. */
  label: string | null;
  of(field: TransportDependentField, hasValue: boolean): FieldApplicability;
}

/**
 * Reads the chosen transport's declaration of the fields it honours. Until the declarations arrive
 * (or for an adapter this server does not register), every field is shown: the server refuses what
 * does not apply on save, with the reason.
 */
export function transportFieldView(transports: HonestyMatrix['transports'] | undefined, adapterId: string): TransportFieldView {
  const declared = transports?.find((transport) => transport.adapterId === (adapterId === '' ? 'builtin' : adapterId));
  if (!declared) return { label: null, of: () => ({ kind: 'applies', how: null }) };
  return {
    label: declared.label,
    of(field, hasValue) {
      const how = declared.honours.agentFields[field];
      if (how !== undefined) return { kind: 'applies', how };
      return hasValue ? { kind: 'ignoredStored' } : { kind: 'absent' };
    },
  };
}
