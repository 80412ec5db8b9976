import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { newId, nowIso } from '../ids.js';
import type { RegistryStore } from '../store/registry-store.js';
import { insertOperator, operatorTokenHashes } from '../store/repositories/operator-repository.js';

import type { AgentPrincipal } from './runs/run-tokens.js';

/** An operator: a person with the operator token. Only operators decide approvals. */
export interface OperatorPrincipal {
  kind: 'operator';
  operatorId: string;
}

/** Who is calling: an operator, or an agent run holding its run-scoped token. */
export type Principal = OperatorPrincipal | AgentPrincipal;

export const OPERATOR_TOKEN_FILE = 'operator-token';

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Operator bearer tokens. Only hashes are stored; the token itself lives in
 * `<data-root>/operator-token` (mode 0600), written on first start.
 */
export class OperatorAuth {
  private readonly operatorsByHash = new Map<string, string>();

  constructor(
    private readonly registry: RegistryStore,
    private readonly dataRoot: string,
  ) {}

  get tokenFile(): string {
    return join(this.dataRoot, OPERATOR_TOKEN_FILE);
  }

  /**
   * Loads operators and makes sure the token file holds a valid token, creating one on first start
   * (or when the file was removed). Returns whether a new token was created.
   */
  async initialize(): Promise<{ created: boolean }> {
    for (const operator of await operatorTokenHashes(this.registry.db)) this.operatorsByHash.set(operator.tokenHash, operator.id);
    const existing = await readFile(this.tokenFile, 'utf8').then((text) => text.trim(), () => null);
    if (existing && this.operatorsByHash.has(hashToken(existing))) {
      await chmod(this.tokenFile, 0o600);
      return { created: false };
    }
    const token = `cc_${randomBytes(24).toString('base64url')}`;
    const id = newId('op');
    await insertOperator(this.registry.db, { id, name: 'operator', tokenHash: hashToken(token), createdAt: nowIso() });
    await writeFile(this.tokenFile, `${token}\n`, { mode: 0o600 });
    await chmod(this.tokenFile, 0o600);
    this.operatorsByHash.set(hashToken(token), id);
    return { created: true };
  }

  /** The first operator (the one `serve` prints a sign-in link for), or null before initialize(). */
  firstOperatorId(): string | null {
    return this.operatorsByHash.values().next().value ?? null;
  }

  /** The principal a bearer token stands for, or null. Compares hashes in constant time. */
  authenticate(token: string): OperatorPrincipal | null {
    const hash = hashToken(token);
    for (const [storedHash, operatorId] of this.operatorsByHash) {
      if (timingSafeEqual(Buffer.from(storedHash), Buffer.from(hash))) return { kind: 'operator', operatorId };
    }
    return null;
  }
}
