import { useEffect, useRef, useState } from 'react';
import type { PostMessageBody } from '../api/types';

/** One file waiting in the composer: what is sent, and a preview URL for images. */
export interface PendingAttachment {
  key: number;
  name: string;
  sizeBytes: number;
  /** Base64 of the bytes, as the message API takes them. */
  data: string;
  /** An object URL for the thumbnail (images only); revoked when the file leaves the tray. */
  previewUrl: string | null;
}

type Upload = NonNullable<PostMessageBody['attachments']>[number];

/** The most files one message takes (the server refuses more). */
const MAX_FILES = 8;

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

function base64Of(bytes: ArrayBuffer): string {
  const view = new Uint8Array(bytes);
  let binary = '';
  // In slices: String.fromCharCode with a few million arguments overflows the stack.
  for (let offset = 0; offset < view.length; offset += 0x8000) binary += String.fromCharCode(...view.subarray(offset, offset + 0x8000));
  return btoa(binary);
}

/** A pasted screenshot has no useful name ("image.png" at best): give it one that says when. */
function nameOf(file: File): string {
  if (file.name && file.name !== 'image.png') return file.name;
  const extension = file.type.split('/')[1] ?? 'png';
  return `pasted-${new Date().toISOString().replace(/[:.]/g, '-')}.${extension}`;
}

/**
 * TOOL-3: the files the composer will send with the next message — added by the paperclip's file
 * picker, by pasting (a screenshot) or by dropping. What a file is, and whether it is too big, is
 * decided by the server from its bytes; its refusal names the file and is shown like any send error.
 */
export function useComposerAttachments() {
  const [pending, setPending] = useState<PendingAttachment[]>([]);
  const nextKey = useRef(0);
  const current = useRef(pending);
  // The newest tray, for the unmount cleanup: previews still waiting are released with the composer.
  useEffect(() => {
    current.current = pending;
  }, [pending]);
  useEffect(() => () => current.current.forEach((file) => file.previewUrl && URL.revokeObjectURL(file.previewUrl)), []);

  const add = async (files: Iterable<File>) => {
    const read = await Promise.all(
      [...files].map(async (file): Promise<PendingAttachment> => ({
        key: nextKey.current++,
        name: nameOf(file),
        sizeBytes: file.size,
        data: base64Of(await file.arrayBuffer()),
        previewUrl: IMAGE_TYPES.has(file.type) ? URL.createObjectURL(file) : null,
      })),
    );
    setPending((old) => [...old, ...read].slice(0, MAX_FILES));
  };

  const remove = (key: number) =>
    setPending((old) => {
      const leaving = old.find((file) => file.key === key);
      if (leaving?.previewUrl) URL.revokeObjectURL(leaving.previewUrl);
      return old.filter((file) => file.key !== key);
    });

  const clear = () =>
    setPending((old) => {
      old.forEach((file) => file.previewUrl && URL.revokeObjectURL(file.previewUrl));
      return [];
    });

  const uploads = (): Upload[] => pending.map((file) => ({ name: file.name, data: file.data }));

  return { pending, add, remove, clear, uploads };
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The paperclip: opens the file picker. */
export function AttachButton({ onFiles }: { onFiles: (files: File[]) => void }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button type="button" className="btn btn-ghost btn-small" data-testid="attach-button" title="Attach images (PNG, JPEG, WebP, GIF) or text files — or paste or drop them" onClick={() => input.current?.click()}>
        Attach…
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        data-testid="attach-input"
        aria-label="Attach files"
        onChange={(event) => {
          const files = [...(event.target.files ?? [])];
          event.target.value = '';
          if (files.length > 0) onFiles(files);
        }}
      />
    </>
  );
}

/** The files waiting to be sent, each removable. */
export function AttachmentTray({ pending, onRemove }: { pending: PendingAttachment[]; onRemove: (key: number) => void }) {
  if (pending.length === 0) return null;
  return (
    <ul className="attachment-tray" aria-label="Attachments" data-testid="attachment-tray">
      {pending.map((file) => (
        <li key={file.key} className="attachment-chip" data-testid="pending-attachment">
          {file.previewUrl ? <img src={file.previewUrl} alt="" className="attachment-thumb" /> : <span className="muted small">text</span>}
          <span className="attachment-name">{file.name}</span>
          <span className="muted small">{sizeText(file.sizeBytes)}</span>
          <button type="button" className="btn btn-ghost btn-small" aria-label={`Remove ${file.name}`} onClick={() => onRemove(file.key)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
