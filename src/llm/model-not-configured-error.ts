import { DomainError } from '../errors/domain-error.js';

/** Why a model could not be resolved. */
export type ModelNotConfiguredReason = 'missing_api_key' | 'missing_base_url' | 'missing_model' | 'unknown_provider' | 'unknown_model';

export interface ModelNotConfiguredDetails {
  reason: ModelNotConfiguredReason;
  providerId?: string;
  modelId?: string;
  /** The environment variable that would fix it, when there is one. */
  envVar?: string;
  /** The workspace setting that would fix it, e.g. `apiKeys.anthropic`. */
  settingKey?: string;
}

/**
 * HAR-2: the agent's model cannot be called because the server lacks its configuration (an API
 * key, a base URL, or a way to tell which provider serves the model). The message says exactly
 * what to set; `reason`, `envVar` and `settingKey` say it to programs.
 */
export class ModelNotConfiguredError extends DomainError {
  readonly code = 'model_not_configured';
  readonly status = 503;
  readonly reason: ModelNotConfiguredReason;
  readonly providerId: string | undefined;
  readonly modelId: string | undefined;
  readonly envVar: string | undefined;
  readonly settingKey: string | undefined;

  constructor(message: string, details: ModelNotConfiguredDetails) {
    super(message, 'modelId');
    this.reason = details.reason;
    this.providerId = details.providerId;
    this.modelId = details.modelId;
    this.envVar = details.envVar;
    this.settingKey = details.settingKey;
  }
}
