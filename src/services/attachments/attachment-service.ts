import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { WorkspaceSchema } from '../../store/workspace-schema.js';
import { fencedTextAttachment, judgeAttachment, type AttachmentContent } from '../../core/attachment-content.js';
import type { TransportCapabilities } from '../../adapters/transport-capabilities.js';
import { NotFoundError, ValidationError } from '../../errors/index.js';
import { lookupModel } from '../../llm/model-catalog.js';
import type { PromptImage } from '../../llm/model-types.js';
import type { Agent } from '../../schemas/agent.js';
import type { AttachmentUpload } from '../../schemas/attachment.js';
import { attachmentsOfMessage, findAttachment, type StoredAttachment } from '../../store/repositories/message-attachment-repository.js';
import type { WorkspaceService } from '../workspaces/workspace-service.js';
import type { SettingsService } from '../workspaces/settings-service.js';
import { withDefaultModel } from '../workspaces/runner-credentials.js';

/** An uploaded file that passed the checks: its decoded bytes and what they are. */
export interface AcceptedAttachment {
  name: string;
  content: AttachmentContent;
  bytes: Buffer;
  sha256: string;
}

/** The images of a message, as the run that answers it sends them to the model (read when the run starts, on whichever process runs it). */
export async function promptImagesOf(db: Kysely<WorkspaceSchema>, conversationId: string, messageId: string): Promise<PromptImage[]> {
  const stored = await attachmentsOfMessage(db, conversationId, messageId);
  return stored.filter((attachment) => attachment.kind === 'image').map((attachment) => ({ mediaType: attachment.mediaType, data: attachment.content.toString('base64'), name: attachment.name }));
}

/** Standard base64 with optional padding, nothing else (Buffer.from would skip any junk silently). */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2,3})?$/;

/**
 * TOOL-3: files attached to an operator's message — checked by content and size before anything is
 * recorded, refused for an agent whose transport or model cannot take images, stored with the
 * message, and handed to the run that answers it (text inlined as a fenced section, images as the
 * provider's image blocks).
 */
export class AttachmentService {
  constructor(
    private readonly workspaces: WorkspaceService,
    private readonly settings: SettingsService,
    private readonly capabilitiesFor: (agent: { adapterId: string | null }) => TransportCapabilities,
  ) {}

  /** Decodes and judges every upload; the first bad one is a 400 naming `attachments[i].name` or `.data`. */
  accept(uploads: readonly AttachmentUpload[]): AcceptedAttachment[] {
    return uploads.map((upload, index) => {
      const field = `attachments[${index}]`;
      if (!BASE64.test(upload.data)) throw new ValidationError(`${field}.data`, 'must be standard base64 (A-Z, a-z, 0-9, +, /, = padding; no line breaks)');
      const bytes = Buffer.from(upload.data, 'base64');
      const verdict = judgeAttachment(upload.name, bytes);
      if (!verdict.ok) throw new ValidationError(`${field}.${verdict.part}`, `${JSON.stringify(upload.name.slice(0, 80))}: ${verdict.problem}`);
      return { name: upload.name, content: verdict.content, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
    });
  }

  /**
   * Refuses images the addressed agent cannot see (400 naming `attachments`): its transport does not
   * carry them, or its model is known not to take them. Text files reach every agent (they are text).
   */
  async refuseImagesTheAgentCannotTake(workspaceId: string, agent: Agent, accepted: readonly AcceptedAttachment[]): Promise<void> {
    if (!accepted.some((attachment) => attachment.content.kind === 'image')) return;
    const capabilities = this.capabilitiesFor(agent);
    if (!capabilities.imageAttachments) {
      throw new ValidationError('attachments', `${capabilities.label} (\`${capabilities.adapterId}\`), the transport of agent ${agent.name}, cannot carry image attachments; attach text files only, or address an agent that can`);
    }
    const modelId = withDefaultModel(agent, await this.settings.get(workspaceId)).modelId;
    let model: ReturnType<typeof lookupModel>['model'] | null = null;
    try {
      model = lookupModel({ modelId }).model;
    } catch {
      // A model the catalogue cannot place fails the run with its own message; it is not an attachment problem.
    }
    if (model?.acceptsImages === false) {
      throw new ValidationError('attachments', `model ${model.id} (agent ${agent.name}) does not take images; attach text files only, or address an agent whose model does`);
    }
  }

  /** The operator's text with each attached text file after it as a fenced section, in order. */
  static promptWithTextFiles(text: string, accepted: readonly Pick<AcceptedAttachment, 'name' | 'content' | 'bytes'>[]): string {
    const sections = accepted.filter((attachment) => attachment.content.kind === 'text').map((attachment) => fencedTextAttachment(attachment.name, attachment.bytes.toString('utf8')));
    return sections.length === 0 ? text : [text, ...sections].join('\n\n');
  }

  /** One attachment's bytes, only through the conversation it belongs to (404 otherwise). */
  async read(workspaceId: string, conversationId: string, attachmentId: string): Promise<StoredAttachment & { content: Buffer }> {
    const { database } = await this.workspaces.handle(workspaceId);
    const found = await findAttachment(database.db, attachmentId);
    if (!found || found.conversationId !== conversationId) throw new NotFoundError('attachment', attachmentId, 'attachmentId');
    return found;
  }
}
