import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerRecord } from '../../store/repositories/mcp-server-repository.js';
import type { McpCallOutcome } from './mcp-connections.js';

/** One content block as text: text as is, anything binary by its kind and size (the model gets no blobs from here). */
function blockText(block: CallToolResult['content'][number]): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'image':
    case 'audio':
      return `[${block.type} ${block.mimeType}, ${Math.round((block.data.length * 3) / 4)} bytes, not shown]`;
    case 'resource':
      return 'text' in block.resource && typeof block.resource.text === 'string' ? block.resource.text : `[resource ${block.resource.uri}, not shown]`;
    case 'resource_link':
      return `[resource link ${block.uri}${block.name ? ` (${block.name})` : ''}]`;
    default:
      return '[content of an unknown kind, not shown]';
  }
}

/**
 * An MCP tool's answer as the model reads it (TOOL-2): the text blocks joined (structured content as
 * JSON when there is no text), cut at the server's output cap with a line that says so. The cap is
 * counted in UTF-8 bytes, the unit a provider's request grows by.
 */
export function formatMcpToolResult(server: Pick<McpServerRecord, 'name' | 'maxOutputBytes'>, toolName: string, result: CallToolResult): McpCallOutcome {
  const blocks = Array.isArray(result.content) ? result.content : [];
  let text = blocks.map(blockText).join('\n');
  if (!text && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  const bytes = Buffer.byteLength(text);
  const details: Record<string, unknown> = { server: server.name, tool: toolName, bytes };
  if (bytes > server.maxOutputBytes) {
    const kept = Buffer.from(text).subarray(0, server.maxOutputBytes).toString('utf8').replace(/\uFFFD$/, '');
    text = `${kept}\n[output truncated: the tool returned ${bytes} bytes, over this server's cap of ${server.maxOutputBytes}]`;
    details.truncated = true;
  }
  return { content: text || '(the tool returned no content)', isError: result.isError === true, details };
}
