import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { NotFoundError } from '../../errors/index.js';
import { newId, nowIso } from '../../ids.js';
import type { ConversationShare, CreatedConversationShare, SharedConversation } from '../../schemas/conversation-share.js';
import {
  findConversationShare,
  findShareByTokenHash,
  insertConversationShare,
  listConversationShares,
  revokeConversationShare,
  type ConversationShareRecord,
} from '../../store/repositories/conversation-share-repository.js';
import type { MessageService } from '../runs/message-service.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import type { SpaceService } from './space-service.js';

/**
 * A share token: the workspace id (which database file holds the link), a dash, and 256 random bits
 * (base64url). No dot: the web app treats a last path segment with an extension as a static file.
 * Only the shape is checked here; everything else answers the same 404 so a guess learns nothing.
 */
const SHARE_TOKEN = /^(ws_[0-9a-f]{1,40})-([A-Za-z0-9_-]{43})$/;

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function toShare(record: ConversationShareRecord): ConversationShare {
  return { id: record.id, conversationId: record.conversationId, createdBy: record.createdBy, createdAt: record.createdAt, revokedAt: record.revokedAt };
}

/** The one answer for every token that opens nothing (unknown, malformed, revoked, another workspace's). */
function noShare(): NotFoundError {
  return new NotFoundError('share', '(token)', 'token');
}

/**
 * Read-only share links of a conversation (RLY-3). The token is shown once and stored as its SHA-256
 * (a copy of the database opens nothing); it opens exactly one conversation's title and message text.
 * Revoking is immediate: the next request is a 404.
 */
export class ConversationShareService {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly spaces: SpaceService,
    private readonly messages: MessageService,
  ) {}

  async create(workspaceId: string, conversationId: string, operatorId: string): Promise<CreatedConversationShare> {
    await this.spaces.getConversation(workspaceId, conversationId);
    const secret = randomBytes(32).toString('base64url');
    const record: ConversationShareRecord = { id: newId('shr'), conversationId, tokenHash: hashSecret(secret), createdBy: operatorId, createdAt: nowIso(), revokedAt: null };
    await insertConversationShare(await this.db(workspaceId), record);
    const share = toShare(record);
    const token = `${workspaceId}-${secret}`;
    return { share, token, path: `/share/${token}` };
  }

  async list(workspaceId: string, conversationId: string): Promise<ConversationShare[]> {
    await this.spaces.getConversation(workspaceId, conversationId);
    return (await listConversationShares(await this.db(workspaceId), conversationId)).map(toShare);
  }

  /** Revokes a link of this conversation; revoking twice keeps the first time. */
  async revoke(workspaceId: string, conversationId: string, shareId: string): Promise<ConversationShare> {
    const db = await this.db(workspaceId);
    const existing = await findConversationShare(db, shareId);
    if (!existing || existing.conversationId !== conversationId) throw new NotFoundError('share', shareId, 'shareId');
    await revokeConversationShare(db, shareId, nowIso());
    return toShare((await findConversationShare(db, shareId))!);
  }

  /** What a live token shows; every other token is the same 404. */
  async open(token: string): Promise<SharedConversation> {
    const parsed = SHARE_TOKEN.exec(token);
    if (!parsed) throw noShare();
    const [, workspaceId, secret] = parsed as unknown as [string, string, string];
    const db = await this.db(workspaceId).catch(() => null);
    if (!db) throw noShare();
    const hash = hashSecret(secret);
    const record = await findShareByTokenHash(db, hash);
    // The lookup is by hash, so timing says nothing about the secret; the constant-time compare keeps
    // it that way should the lookup ever become a scan.
    if (!record || !timingSafeEqual(Buffer.from(record.tokenHash, 'hex'), Buffer.from(hash, 'hex')) || record.revokedAt !== null) throw noShare();
    const conversation = await this.spaces.getConversation(workspaceId, record.conversationId).catch(() => null);
    if (!conversation) throw noShare();
    const messages = await this.messages.list(workspaceId, conversation.id);
    return {
      title: conversation.title,
      messages: messages.map((message) => ({ role: message.role, author: message.authorKind, content: message.content, createdAt: message.createdAt })),
    };
  }

  private async db(workspaceId: string) {
    return (await this.workspaces.handle(workspaceId)).database.db;
  }
}
