import { readFile, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { newId, nowIso } from '../ids.js';
import type { RegistryStore } from '../store/registry-store.js';
import { insertPerson, insertToken, ownerRow, tokenHolder } from '../store/repositories/people-repository.js';
import { findTokenHolder } from '../store/repositories/token-holder-read.js';
import { tokenCredential } from './people/credential-revocations.js';
import { hashSecret, newSecret } from './people/secret-hash.js';

import type { AgentPrincipal } from './runs/run-tokens.js';

/**
 * A person (TEAM-1) behind a request: `operatorId` is their person id (the name predates people).
 * `readOnly`: the credential was a read-only token (or a session or ticket minted through one), so the
 * person acts as a viewer wherever they are.
 */
export interface OperatorPrincipal {
  kind: 'operator';
  operatorId: string;
  readOnly?: boolean;
  /** The credential the request came with (`session:<id>`, `token:<id>`): revoking it closes the streams it opened. */
  credential?: string | null;
  /**
   * What the credential's own read found about its person, in this request: not removed, and whether
   * the owner (a token's read joins its person). The role check then does not read the person again.
   * Absent (a session, an SSE ticket): the role check reads the person itself.
   */
  activePerson?: { owner: boolean };
}

/** Who is calling: a person, or an agent run holding its run-scoped token. An agent is never a person. */
export type Principal = OperatorPrincipal | AgentPrincipal;

export const OPERATOR_TOKEN_FILE = 'operator-token';

/**
 * Bearer tokens of people. Only hashes are stored (`person_tokens`); the owner's first token — the
 * operator token of the single-operator days — lives in `<data-root>/operator-token` (mode 0600),
 * written on first start. Every lookup reads the registry, so a revoked token or a removed person
 * stops working at once, on every process of the deployment.
 */
export class OperatorAuth {
  private ownerId: string | null = null;

  constructor(
    private readonly registry: RegistryStore,
    private readonly dataRoot: string,
  ) {}

  get tokenFile(): string {
    return join(this.dataRoot, OPERATOR_TOKEN_FILE);
  }

  /**
   * Makes sure there is an owner and that the token file holds one of the owner's live tokens: the
   * first start creates the owner; a removed or stale file gets a new token for the same owner.
   * Returns whether a new token was created.
   */
  async initialize(): Promise<{ created: boolean }> {
    const existing = await readFile(this.tokenFile, 'utf8').then((text) => text.trim(), () => null);
    const holder = existing ? await tokenHolder(this.registry.db, hashSecret(existing)) : undefined;
    const owner = await ownerRow(this.registry.db);
    if (holder?.owner && owner) {
      this.ownerId = owner.id;
      await chmod(this.tokenFile, 0o600);
      return { created: false };
    }
    const token = newSecret('cc_', 24);
    const at = nowIso();
    const ownerId = owner?.id ?? newId('op');
    await this.registry.db.transaction().execute(async (trx) => {
      if (!owner) await insertPerson(trx, { id: ownerId, name: 'owner', email: null, owner: true, createdAt: at });
      await insertToken(trx, { id: newId('ptk'), personId: ownerId, name: 'operator token', tokenHash: hashSecret(token), readOnly: false, createdAt: at });
    });
    await writeFile(this.tokenFile, `${token}\n`, { mode: 0o600 });
    await chmod(this.tokenFile, 0o600);
    this.ownerId = ownerId;
    return { created: true };
  }

  /** The owner (the person `serve` prints a sign-in link for), or null before initialize(). */
  firstOperatorId(): string | null {
    return this.ownerId;
  }

  /**
   * The person a bearer token stands for, or null. The lookup is by the token's sha256 through the
   * unique index: the hash of a high-entropy secret leaks nothing usable through timing.
   */
  async authenticate(token: string): Promise<OperatorPrincipal | null> {
    const holder = await findTokenHolder(this.registry.db, hashSecret(token));
    return holder ? { kind: 'operator', operatorId: holder.personId, readOnly: holder.readOnly, credential: tokenCredential(holder.tokenId), activePerson: { owner: holder.owner } } : null;
  }
}
