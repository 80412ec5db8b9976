import { z } from 'zod';
import type { ToolDescriptor } from '../core/tool-descriptor.js';
import type { ModelTool } from '../llm/model-types.js';
import { askUserTool } from './ask-user-tool.js';
import { bashTool } from './bash-tool.js';
import { fail, type Tool, type ToolResult } from './define-tool.js';
import { editTool } from './edit-tool.js';
import { globTool } from './glob-tool.js';
import { grepTool } from './grep-tool.js';
import { listTool } from './list-tool.js';
import { readTool } from './read-tool.js';
import { taskTool } from './task-tool.js';
import { todoTool } from './todo-tool.js';
import { webFetchTool } from './web-fetch-tool.js';
import { createWebSearchTool } from './web-search-tool.js';
import type { WebSearchProvider } from './web/web-search-provider.js';
import { writeTool } from './write-tool.js';

/** What the registry depends on in the workspace's settings. */
export interface BuiltinToolOptions {
  /** TOOL-1: the configured search provider; without one there is no `web_search` at all. */
  webSearch?: WebSearchProvider | null;
}

/**
 * The built-in tool registry, in the order the model sees them. A fresh array each call, so a caller
 * can filter or extend it without touching anyone else's copy.
 */
export function builtinTools(options: BuiltinToolOptions = {}): Tool[] {
  return [
    readTool,
    listTool,
    globTool,
    grepTool,
    webFetchTool,
    ...(options.webSearch ? [createWebSearchTool(options.webSearch)] : []),
    writeTool,
    editTool,
    bashTool,
    todoTool,
    askUserTool,
    taskTool,
  ];
}

/** The plain-data projection the core works with (CAP-2): no schema, no `execute`. */
export function toolDescriptors(tools: readonly Tool[]): ToolDescriptor[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    tier: tool.tier,
    effects: [...tool.effects],
    writesWorktree: tool.writesWorktree,
    ...(tool.recordsOnly ? { recordsOnly: true } : {}),
    ...(tool.effectsByAction ? { effectsByAction: tool.effectsByAction } : {}),
    ...(tool.startsRuns ? { startsRuns: true } : {}),
    ...(tool.asksOperatorFirst ? { asksOperatorFirst: true } : {}),
    ...(tool.group ? { group: tool.group } : {}),
    ...(tool.egressUrlField ? { egressUrlField: tool.egressUrlField } : {}),
  }));
}

/**
 * The definition a model provider receives: name, description and the JSON schema of the input (the
 * input side of the zod schema, so fields with defaults are optional). The `$schema` key is dropped:
 * providers want a bare object schema.
 */
export function toModelTool(tool: Tool): ModelTool {
  let inputSchema = inputSchemas.get(tool.parameters);
  if (!inputSchema) {
    const { $schema: _schema, ...converted } = z.toJSONSchema(tool.parameters, { io: 'input' }) as Record<string, unknown>;
    inputSchema = converted;
    inputSchemas.set(tool.parameters, inputSchema);
  }
  return { name: tool.name, description: tool.description, inputSchema };
}

/**
 * JSON schemas already converted, by zod schema: a tool's schema is a constant, so it is converted
 * once, not on every run (the conversion was a measurable part of a tool turn's CPU).
 */
const inputSchemas = new WeakMap<z.ZodType, Record<string, unknown>>();

export type ParsedToolInput<Input> = { ok: true; input: Input } | { ok: false; result: ToolResult };

/**
 * Validates what the model sent against the tool's schema. On failure the result is an `isError` tool
 * result (convention 5) naming every bad field, so the model can correct the call.
 */
export function parseToolInput<Input>(tool: Tool<Input>, raw: unknown): ParsedToolInput<Input> {
  const parsed = tool.parameters.safeParse(raw);
  if (parsed.success) return { ok: true, input: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '(input)';
    return { field, message: issue.message };
  });
  const lines = problems.map((problem) => `- ${problem.field}: ${problem.message}`);
  return {
    ok: false,
    result: fail(`Invalid input for ${tool.name}:\n${lines.join('\n')}`, { fields: problems.map((problem) => problem.field), problems }),
  };
}
