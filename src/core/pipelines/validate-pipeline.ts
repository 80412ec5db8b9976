import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { checkConditionExpression } from './condition-expression.js';
import { cronProblem } from './cron.js';
import { checkSchemaShape } from './output-schema-check.js';
import { pipelineDefinitionSchema, pipelineNodeSchema, type PipelineDefinition, type PipelineNode } from './pipeline-definition.js';
import type { PipelineIssue } from './pipeline-issue.js';
import { findPlaceholders, TRIGGER_SOURCE } from './placeholders.js';
import { ignoredModeExtras } from './space-mode-extras.js';

export interface PipelineValidation {
  /** The parsed definition when there is no error (warnings allowed), else null. */
  definition: PipelineDefinition | null;
  errors: PipelineIssue[];
  warnings: PipelineIssue[];
}

/** The text fields of a node that may carry `{{placeholders}}`. */
export function placeholderFields(node: PipelineNode): Array<[string, string]> {
  switch (node.type) {
    case 'messaging.createSpace':
      return [['name', node.name]];
    case 'condition':
      return [['expression', node.expression]];
    case 'bashScript':
      return [['script', node.script]];
    case 'planStep':
      // A plan step's text is the agent's own plan, handed over verbatim: nothing in it is a placeholder.
      return [];
    default:
      return [['prompt', node.prompt]];
  }
}

function zodIssues(error: z.ZodError, prefix: string, nodeKey: string | undefined): PipelineIssue[] {
  return error.issues.map((issue) => {
    const field = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    return { severity: 'error' as const, code: 'schema' as const, message: `${field}: ${issue.message}`, field, ...(nodeKey ? { nodeKey } : {}) };
  });
}

/**
 * The transitive upstream set (ancestors) of one node, walked iteratively (a 10,000-node chain must
 * not exhaust the stack) and only for nodes that need it (those with placeholders or `spaceFrom`).
 */
function upstreamOf(byKey: ReadonlyMap<string, PipelineNode>, key: string): Set<string> {
  const seen = new Set<string>();
  const queue = [...(byKey.get(key)?.dependsOn ?? [])];
  while (queue.length > 0) {
    const next = queue.pop()!;
    if (seen.has(next) || !byKey.has(next)) continue;
    seen.add(next);
    queue.push(...byKey.get(next)!.dependsOn);
  }
  seen.delete(key);
  return seen;
}

/** The nodes on some cycle (Tarjan's strongly connected components of size > 1, or a self loop). */
function nodesOnCycles(nodes: readonly PipelineNode[]): string[][] {
  const byKey = new Map(nodes.map((node) => [node.key, node]));
  let index = 0;
  const indexes = new Map<string, number>();
  const lowlinks = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  // Iterative to survive 10,000-node chains without blowing the call stack.
  for (const root of nodes) {
    if (indexes.has(root.key)) continue;
    const work: Array<{ key: string; next: number }> = [{ key: root.key, next: 0 }];
    indexes.set(root.key, index);
    lowlinks.set(root.key, index);
    index += 1;
    stack.push(root.key);
    onStack.add(root.key);
    while (work.length > 0) {
      const frame = work.at(-1)!;
      const dependencies = (byKey.get(frame.key)?.dependsOn ?? []).filter((key) => byKey.has(key));
      if (frame.next < dependencies.length) {
        const next = dependencies[frame.next]!;
        frame.next += 1;
        if (!indexes.has(next)) {
          indexes.set(next, index);
          lowlinks.set(next, index);
          index += 1;
          stack.push(next);
          onStack.add(next);
          work.push({ key: next, next: 0 });
        } else if (onStack.has(next)) {
          lowlinks.set(frame.key, Math.min(lowlinks.get(frame.key)!, indexes.get(next)!));
        }
        continue;
      }
      work.pop();
      const parent = work.at(-1);
      if (parent) lowlinks.set(parent.key, Math.min(lowlinks.get(parent.key)!, lowlinks.get(frame.key)!));
      if (lowlinks.get(frame.key) === indexes.get(frame.key)) {
        const component: string[] = [];
        let popped: string;
        do {
          popped = stack.pop()!;
          onStack.delete(popped);
          component.push(popped);
        } while (popped !== frame.key);
        if (component.length > 1) components.push(component.reverse());
      }
    }
  }
  return components;
}

/**
 * The pipeline validator (PIPE-1): checks a definition from an API body or a parsed file and returns
 * every problem at once, each with the node it is about — schema errors per node, duplicate keys,
 * unknown or self dependencies, cycles, placeholders naming a node that is not upstream, malformed
 * conditions, crons and output schemas — plus MODE-5's warnings for ignored `extras` mode spellings.
 * Pure: no I/O, so the API, the file loader and the web's Plan Studio can share it.
 */
export function validatePipelineDefinition(input: unknown): PipelineValidation {
  const errors: PipelineIssue[] = [];
  const warnings: PipelineIssue[] = [];
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { definition: null, errors: [{ severity: 'error', code: 'schema', message: 'a pipeline definition must be an object', field: '' }], warnings };
  }
  const record = input as Record<string, unknown>;
  const header = pipelineDefinitionSchema.omit({ nodes: true }).strict().safeParse(Object.fromEntries(Object.entries(record).filter(([key]) => key !== 'nodes')));
  if (!header.success) errors.push(...zodIssues(header.error, '', undefined));
  const rawNodes = record['nodes'];
  if (!Array.isArray(rawNodes) || rawNodes.length === 0 || rawNodes.length > 10_000) {
    errors.push({ severity: 'error', code: 'schema', message: 'nodes: must be a list of 1 to 10000 nodes', field: 'nodes' });
    return { definition: null, errors, warnings };
  }
  const nodes: PipelineNode[] = [];
  const nodeIndex = new Map<string, number>();
  rawNodes.forEach((raw, index) => {
    const rawKey = raw !== null && typeof raw === 'object' && typeof (raw as Record<string, unknown>)['key'] === 'string' ? ((raw as Record<string, unknown>)['key'] as string) : undefined;
    const parsed = pipelineNodeSchema.safeParse(raw);
    if (!parsed.success) {
      errors.push(...zodIssues(parsed.error, `nodes.${index}`, rawKey));
      return;
    }
    const node = parsed.data;
    if (node.type === 'planStep') {
      // PLAN-7: only an operator's approval of a plan compiles these; an authored one could aim an agent at any conversation.
      errors.push({ severity: 'error', code: 'schema', message: `nodes.${index}.type: planStep nodes are compiled from approved plans and cannot be authored`, field: `nodes.${index}.type`, nodeKey: node.key });
      return;
    }
    if (nodeIndex.has(node.key)) {
      errors.push({ severity: 'error', code: 'duplicate_key', message: `node key ${node.key} is used by nodes ${nodeIndex.get(node.key)} and ${index}`, field: `nodes.${index}.key`, nodeKey: node.key });
      return;
    }
    nodeIndex.set(node.key, index);
    nodes.push(node);
  });
  if (header.success) {
    header.data.triggers.forEach((trigger, index) => {
      if (trigger.type !== 'schedule') return;
      const problem = cronProblem(trigger.cron);
      if (problem) errors.push({ severity: 'error', code: 'bad_cron', message: `triggers.${index}.cron: ${problem}`, field: `triggers.${index}.cron` });
    });
  }
  // Output keys: what placeholders name. A node's key and its output key both address its output.
  const outputOwner = new Map<string, string>();
  for (const node of nodes) {
    const index = nodeIndex.get(node.key)!;
    for (const [name, field] of [[node.key, 'key'], [node.outputKey, 'outputKey']] as const) {
      if (name === undefined) continue;
      if (name === TRIGGER_SOURCE) {
        errors.push({ severity: 'error', code: 'reserved_key', message: `${field} ${TRIGGER_SOURCE} is reserved for the trigger's payload`, field: `nodes.${index}.${field}`, nodeKey: node.key });
        continue;
      }
      const owner = outputOwner.get(name);
      if (owner !== undefined && owner !== node.key) {
        errors.push({ severity: 'error', code: 'duplicate_output_key', message: `${field} ${name} is already the key or output key of node ${owner}`, field: `nodes.${index}.${field}`, nodeKey: node.key });
      } else {
        outputOwner.set(name, node.key);
      }
    }
  }
  for (const node of nodes) {
    const index = nodeIndex.get(node.key)!;
    node.dependsOn.forEach((dependency, position) => {
      if (dependency === node.key) {
        errors.push({ severity: 'error', code: 'self_dependency', message: `node ${node.key} depends on itself`, field: `nodes.${index}.dependsOn.${position}`, nodeKey: node.key });
      } else if (!nodeIndex.has(dependency)) {
        errors.push({ severity: 'error', code: 'unknown_dependency', message: `node ${node.key} depends on unknown node ${dependency}`, field: `nodes.${index}.dependsOn.${position}`, nodeKey: node.key });
      }
    });
  }
  for (const component of nodesOnCycles(nodes)) {
    // A long cycle is shown by its first keys only: the message is repeated on every node of it.
    const shown = component.length > 8 ? `${component.slice(0, 8).join(' → ')} → … (${component.length} nodes)` : component.join(' → ');
    for (const key of component) {
      errors.push({ severity: 'error', code: 'cycle', message: `node ${key} is on a dependency cycle: ${shown} → ${component[0]}`, field: `nodes.${nodeIndex.get(key)}.dependsOn`, nodeKey: key });
    }
  }
  const byKey = new Map(nodes.map((node) => [node.key, node]));
  for (const node of nodes) {
    const index = nodeIndex.get(node.key)!;
    let upstreamCache: Set<string> | null = null;
    const upstreamSet = (): Set<string> => (upstreamCache ??= upstreamOf(byKey, node.key));
    for (const [field, text] of placeholderFields(node)) {
      for (const ref of findPlaceholders(text)) {
        if (ref.source === TRIGGER_SOURCE) continue;
        const owner = outputOwner.get(ref.source);
        if (owner === undefined || !upstreamSet().has(owner)) {
          const why = owner === undefined ? 'names no node' : `names node ${owner}, which is not upstream of ${node.key} (add it to dependsOn)`;
          errors.push({ severity: 'error', code: 'placeholder_not_upstream', message: `placeholder ${ref.text} in ${field} ${why}`, field: `nodes.${index}.${field}`, nodeKey: node.key });
        }
      }
    }
    if (node.type === 'condition') {
      const problem = checkConditionExpression(node.expression);
      if (problem) errors.push({ severity: 'error', code: 'bad_expression', message: `expression: ${problem}`, field: `nodes.${index}.expression`, nodeKey: node.key });
    }
    if (node.outputSchema !== undefined) {
      for (const problem of checkSchemaShape(node.outputSchema)) {
        errors.push({ severity: 'error', code: 'bad_output_schema', message: problem, field: `nodes.${index}.outputSchema`, nodeKey: node.key });
      }
    }
    if (node.type === 'promptAgent' && node.spaceFrom !== undefined) {
      const source = nodes.find((candidate) => candidate.key === node.spaceFrom);
      if (!source || source.type !== 'messaging.createSpace' || !upstreamSet().has(source.key)) {
        errors.push({ severity: 'error', code: 'space_from_not_upstream', message: `spaceFrom ${node.spaceFrom} must name an upstream messaging.createSpace node`, field: `nodes.${index}.spaceFrom`, nodeKey: node.key });
      }
    }
    if (node.type === 'messaging.createSpace') {
      for (const ignored of ignoredModeExtras(node.extras)) {
        warnings.push({ severity: 'warning', code: 'mode_ignored', message: ignored.message, field: `nodes.${index}.extras.${ignored.key}`, nodeKey: node.key });
      }
    }
  }
  if (errors.length > 0) return { definition: null, errors, warnings };
  return { definition: pipelineDefinitionSchema.parse(input), errors, warnings };
}

/**
 * A pipeline file from the workspace (`*.json`, `*.yaml`, `*.yml`): parsed, then validated like an
 * API body. A syntax error is one `parse` error naming the line when the parser knows it.
 */
export function validatePipelineSource(text: string, format: 'json' | 'yaml'): PipelineValidation {
  let value: unknown;
  try {
    value = format === 'json' ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100 });
  } catch (error) {
    return { definition: null, errors: [{ severity: 'error', code: 'parse', message: `not valid ${format.toUpperCase()}: ${(error as Error).message}`, field: '' }], warnings: [] };
  }
  return validatePipelineDefinition(value);
}

/** Which format a file name says it is, or null for anything else. */
export function pipelineFormatOf(fileName: string): 'json' | 'yaml' | null {
  if (/\.json$/i.test(fileName)) return 'json';
  if (/\.ya?ml$/i.test(fileName)) return 'yaml';
  return null;
}
