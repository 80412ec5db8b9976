/** One problem with a synthesis output schema; `path` is appended to `synthesis.outputSchema`. */
export interface SynthesisSchemaProblem {
  readonly path: string;
  readonly message: string;
}

const JSON_SCHEMA_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * ORC-1: the synthesis output is a JSON object schema whose properties include `gaps`, an array — what
 * the team could not cover must be reported, not silently dropped. Checks the subset of JSON Schema the
 * engine relies on: `type: "object"`, `properties` a map of sub-schemas each with a known `type` when it
 * names one, `required` (if present) a list of declared property names, and `gaps` of type array.
 */
export function checkSynthesisSchema(schema: Record<string, unknown>): SynthesisSchemaProblem[] {
  const problems: SynthesisSchemaProblem[] = [];
  if (schema.type !== 'object') problems.push({ path: '.type', message: 'The synthesis outputSchema must be an object schema ("type": "object").' });
  const properties = schema.properties;
  if (!isRecord(properties)) {
    problems.push({ path: '.properties', message: 'The synthesis outputSchema needs "properties", including a "gaps" array.' });
    return problems;
  }
  for (const [name, sub] of Object.entries(properties)) {
    if (!isRecord(sub)) {
      problems.push({ path: `.properties.${name}`, message: `Property "${name}" of the synthesis outputSchema is not a schema object.` });
    } else if (sub.type !== undefined && !(typeof sub.type === 'string' && JSON_SCHEMA_TYPES.has(sub.type))) {
      problems.push({ path: `.properties.${name}.type`, message: `Property "${name}" has an unknown JSON Schema type ${JSON.stringify(sub.type)}.` });
    }
  }
  const gaps = properties.gaps;
  if (!isRecord(gaps) || gaps.type !== 'array') {
    problems.push({ path: '.properties.gaps', message: 'The synthesis outputSchema must declare "gaps" as an array ("type": "array"): the list of what the team could not cover.' });
  }
  if (schema.required !== undefined) {
    if (!Array.isArray(schema.required) || schema.required.some((name) => typeof name !== 'string')) {
      problems.push({ path: '.required', message: '"required" must be a list of property names.' });
    } else {
      for (const name of schema.required as string[]) {
        if (!(name in properties)) problems.push({ path: '.required', message: `"required" names "${name}", which is not among the properties.` });
      }
    }
  }
  return problems;
}
