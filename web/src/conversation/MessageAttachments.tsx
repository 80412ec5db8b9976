import { useEffect, useState } from 'react';
import { getToken } from '../api/client';
import type { Message } from '../api/types';

type Attachment = NonNullable<Message['attachments']>[number];

/**
 * An attachment's bytes as an object URL. Fetched with the operator token when the browser signed in
 * with one (an `<img src>` cannot send the Authorization header), else with the session cookie; the
 * server serves them with nosniff and a sandbox CSP. Null until loaded, or when it cannot be.
 */
function useAttachmentUrl(path: string): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let objectUrl: string | null = null;
    let cancelled = false;
    const token = getToken();
    void fetch(path, token ? { headers: { authorization: `Bearer ${token}` } } : {})
      .then((response) => (response.ok ? response.blob() : null))
      .then((blob) => {
        if (!blob || cancelled) return;
        objectUrl = URL.createObjectURL(blob);
        setUrl(objectUrl);
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [path]);
  return url;
}

function AttachmentItem({ path, attachment }: { path: string; attachment: Attachment }) {
  const url = useAttachmentUrl(path);
  if (attachment.kind === 'image') {
    return (
      <li className="attachment-chip" data-testid="message-attachment">
        {url ? (
          <a href={url} target="_blank" rel="noreferrer" title={attachment.name}>
            <img src={url} alt={attachment.name} className="attachment-image" />
          </a>
        ) : (
          <span className="muted small">{attachment.name}</span>
        )}
      </li>
    );
  }
  return (
    <li className="attachment-chip" data-testid="message-attachment">
      {url ? (
        <a href={url} target="_blank" rel="noreferrer" download={attachment.name}>
          {attachment.name}
        </a>
      ) : (
        <span>{attachment.name}</span>
      )}
    </li>
  );
}

/** TOOL-3: the files a message was sent with — images shown, text files as links that open them. */
export function MessageAttachments({ ws, message }: { ws: string; message: Message }) {
  const attachments = message.attachments ?? [];
  if (attachments.length === 0) return null;
  const base = `/api/workspaces/${encodeURIComponent(ws)}/conversations/${encodeURIComponent(message.conversationId)}/attachments/`;
  return (
    <ul className="message-attachments" aria-label="Attachments" data-testid="message-attachments">
      {attachments.map((attachment) => (
        <AttachmentItem key={attachment.id} path={`${base}${encodeURIComponent(attachment.id)}`} attachment={attachment} />
      ))}
    </ul>
  );
}
