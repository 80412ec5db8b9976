import type { TransportAction } from '../../core/transport-gate.js';
import { CONSENT_QUESTION_ENDING, consentQuestion, type ConsentQuestion } from '../../core/relay/consent-card.js';

type Json = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The MCP server name the transport gives the Control Center's product tools in a Copilot session. */
export const CONTROL_CENTER_MCP_SERVER = 'control-center';

/** What the host makes of one Copilot permission request before any mode or policy decides. */
export type CopilotPermissionAsk =
  /** Reading (a file, a search, a command the runtime parsed as read-only): approved in every mode. */
  | { kind: 'read' }
  /** A product tool: the Control Center's MCP server decides every call itself (policy, approval, pinned verbs). */
  | { kind: 'product' }
  /** A mutating action to put to the policy gate; `summary` is what a question card shows. */
  | { kind: 'gate'; action: TransportAction; summary: string }
  /** Refused without asking; `reason` goes back to the agent. */
  | { kind: 'refuse'; reason: string };

/** True when every command of a shell request is one the runtime itself parsed as read-only, with no file redirection. */
function readOnlyShell(request: Json): boolean {
  const commands = Array.isArray(request.commands) ? (request.commands as Json[]) : [];
  return commands.length > 0 && commands.every((command) => command?.readOnly === true) && request.hasWriteFileRedirection !== true;
}

/**
 * Classifies a Copilot permission request (POL-1, fail closed POL-4). Every string in it comes from
 * the model and is hostile: only the runtime's own structured fields decide what is a read, and
 * anything this host does not know (memories, URLs, extensions, other MCP servers, custom tools) is
 * refused rather than approved.
 */
export function classifyCopilotPermission(request: Json): CopilotPermissionAsk {
  switch (text(request.kind)) {
    case 'read':
      return { kind: 'read' };
    case 'shell': {
      if (readOnlyShell(request)) return { kind: 'read' };
      const command = text(request.fullCommandText).trim();
      if (!command) return { kind: 'refuse', reason: 'the request names no command' };
      return { kind: 'gate', action: { kind: 'command', command, toolName: 'copilot:shell' }, summary: command };
    }
    case 'write': {
      const path = text(request.fileName).trim();
      if (!path) return { kind: 'refuse', reason: 'the request names no file' };
      return { kind: 'gate', action: { kind: 'fileWrite', path, toolName: 'copilot:write' }, summary: `write ${path}` };
    }
    case 'mcp':
      if (text(request.serverName) === CONTROL_CENTER_MCP_SERVER) return { kind: 'product' };
      return { kind: 'refuse', reason: `MCP server ${JSON.stringify(text(request.serverName))} is not one this host provides` };
    case 'url':
      return { kind: 'refuse', reason: 'this host does not let the runner fetch URLs' };
    default:
      return { kind: 'refuse', reason: `Control Center does not grant ${JSON.stringify(text(request.kind) || 'unknown')} permission requests` };
  }
}

/** The question card an Ask-mode permission request becomes (RLY-7). */
export function approvalQuestion(summary: string): ConsentQuestion {
  return consentQuestion(`Copilot wants to run: ${summary}\n${CONSENT_QUESTION_ENDING}`, [APPROVE, DENY]);
}

export const APPROVE = 'Approve';
export const DENY = 'Deny';
