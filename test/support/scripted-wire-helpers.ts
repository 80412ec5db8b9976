import { randomBytes } from 'node:crypto';
import type { ReplySpec, ScriptedBlock, ScriptedStopReason } from './scripted-reply.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += BASE62[byte % 62];
  return out;
}

/** Ids shaped like the real services' (`msg_01…`, `toolu_01…`, `req_011C…`, `chatcmpl-…`, `call_…`). */
/** A parsed JSON object of a request or reply body. */
export type Json = Record<string, unknown>;

/** The value when it is an array, else an empty one (request bodies are untrusted). */
export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export const scriptedIds = {
  message: () => `msg_01${base62(22)}`,
  toolUse: () => `toolu_01${base62(22)}`,
  request: () => `req_011C${base62(20)}`,
  completion: () => `chatcmpl-${base62(29)}`,
  toolCall: () => `call_${base62(24)}`,
  signature: () => randomBytes(48).toString('base64'),
};

/** Splits text into deltas of at most `size` characters, preferring word boundaries. */
export function chunkText(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const chunks: string[] = [];
  let rest = text;
  while (rest.length > size) {
    const window = rest.slice(0, size + 1);
    const cut = window.lastIndexOf(' ');
    const at = cut > 0 ? cut + 1 : size;
    chunks.push(rest.slice(0, at));
    rest = rest.slice(at);
  }
  if (rest) chunks.push(rest);
  return chunks;
}

/** Splits a JSON string into fixed-size pieces (deliberately cutting through tokens, as real APIs do). */
export function chunkJson(json: string, size: number): string[] {
  const chunks: string[] = [];
  for (let at = 0; at < json.length; at += size) chunks.push(json.slice(at, at + size));
  return chunks;
}

/** A deterministic token estimate: one token per four characters, at least one. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

export function outputTokenEstimate(blocks: ScriptedBlock[]): number {
  const text = blocks.map((block) => (block.type === 'tool' ? block.name + JSON.stringify(block.input) : block.text)).join('');
  return estimateTokens(text);
}

export function stopReasonOf(spec: ReplySpec): ScriptedStopReason {
  return spec.stopReason ?? (spec.blocks.some((block) => block.type === 'tool') ? 'tool_use' : 'end_turn');
}

/** Final usage numbers for a reply: scripted values, else estimates. */
export function usageOf(spec: ReplySpec, requestText: string): { input: number; output: number; cacheRead: number; cacheWrite: number } {
  return {
    input: spec.usage.input ?? estimateTokens(requestText),
    output: spec.usage.output ?? outputTokenEstimate(spec.blocks),
    cacheRead: spec.usage.cacheRead ?? 0,
    cacheWrite: spec.usage.cacheWrite ?? 0,
  };
}

/** What a renderer hands the server: status, headers, and the body as ordered frames. */
export interface RenderedReply {
  status: number;
  headers: Record<string, string>;
  /** Frames sent in every case (for streams: the start and the content). */
  frames: string[];
  /** Frames that finish a normal stream (stop reason, usage, terminator); skipped by other endings. */
  tail: string[];
  /** The frame an in-stream error ending sends. */
  streamErrorFrame?: string;
  /** A frame whose JSON is cut off, for the malformed ending. */
  malformedFrame?: string;
}
