/**
 * A node's `outputSchema` (PIPE-1): the subset of JSON Schema the engine checks — `type` (one or a
 * list), `properties`, `required`, `additionalProperties: false`, `items`, `enum`, `const`,
 * `minItems`/`maxItems`, `minLength`/`maxLength`, `minimum`/`maximum`. Keywords outside the subset are
 * refused by {@link checkSchemaShape} so a schema never silently checks less than it says.
 */
const KNOWN_KEYWORDS = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'minItems', 'maxItems',
  'minLength', 'maxLength', 'minimum', 'maximum', 'description', 'title', '$schema',
]);
const TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

/** Problems with the schema itself (the validator reports them on the node), empty when usable. */
export function checkSchemaShape(schema: unknown, path = 'outputSchema'): string[] {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return [`${path}: must be an object`];
  const problems: string[] = [];
  const record = schema as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!KNOWN_KEYWORDS.has(key)) problems.push(`${path}.${key}: keyword not supported by the engine's checker`);
  }
  const type = record['type'];
  const types = Array.isArray(type) ? type : type === undefined ? [] : [type];
  for (const item of types) if (typeof item !== 'string' || !TYPES.has(item)) problems.push(`${path}.type: unknown type ${JSON.stringify(item)}`);
  if (record['properties'] !== undefined) {
    const properties = record['properties'];
    if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) problems.push(`${path}.properties: must be an object`);
    else for (const [name, sub] of Object.entries(properties)) problems.push(...checkSchemaShape(sub, `${path}.properties.${name}`));
  }
  if (record['required'] !== undefined && !(Array.isArray(record['required']) && record['required'].every((item) => typeof item === 'string'))) {
    problems.push(`${path}.required: must be a list of property names`);
  }
  if (record['items'] !== undefined) problems.push(...checkSchemaShape(record['items'], `${path}.items`));
  if (record['additionalProperties'] !== undefined && typeof record['additionalProperties'] !== 'boolean') {
    problems.push(`${path}.additionalProperties: only true or false is supported`);
  }
  if (record['enum'] !== undefined && !Array.isArray(record['enum'])) problems.push(`${path}.enum: must be a list`);
  return problems;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Every way `value` breaks `schema`, as `path: problem` lines; empty when it conforms. */
export function checkAgainstSchema(value: unknown, schema: Record<string, unknown>, path = '$'): string[] {
  const problems: string[] = [];
  const type = schema['type'];
  if (type !== undefined) {
    const allowed = Array.isArray(type) ? (type as string[]) : [type as string];
    const actual = typeOf(value);
    const ok = allowed.includes(actual) || (actual === 'integer' && allowed.includes('number'));
    if (!ok) return [`${path}: expected ${allowed.join(' or ')}, got ${actual}`];
  }
  if (schema['const'] !== undefined && JSON.stringify(schema['const']) !== JSON.stringify(value)) problems.push(`${path}: must equal ${JSON.stringify(schema['const'])}`);
  if (Array.isArray(schema['enum']) && !schema['enum'].some((item) => JSON.stringify(item) === JSON.stringify(value))) {
    problems.push(`${path}: must be one of ${JSON.stringify(schema['enum'])}`);
  }
  if (typeof value === 'string') {
    if (typeof schema['minLength'] === 'number' && value.length < schema['minLength']) problems.push(`${path}: shorter than ${schema['minLength']}`);
    if (typeof schema['maxLength'] === 'number' && value.length > schema['maxLength']) problems.push(`${path}: longer than ${schema['maxLength']}`);
  }
  if (typeof value === 'number') {
    if (typeof schema['minimum'] === 'number' && value < schema['minimum']) problems.push(`${path}: below ${schema['minimum']}`);
    if (typeof schema['maximum'] === 'number' && value > schema['maximum']) problems.push(`${path}: above ${schema['maximum']}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema['minItems'] === 'number' && value.length < schema['minItems']) problems.push(`${path}: fewer than ${schema['minItems']} items`);
    if (typeof schema['maxItems'] === 'number' && value.length > schema['maxItems']) problems.push(`${path}: more than ${schema['maxItems']} items`);
    const items = schema['items'];
    if (items && typeof items === 'object') value.forEach((item, index) => problems.push(...checkAgainstSchema(item, items as Record<string, unknown>, `${path}[${index}]`)));
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const properties = (schema['properties'] ?? {}) as Record<string, Record<string, unknown>>;
    for (const name of (schema['required'] as string[] | undefined) ?? []) {
      if (!Object.prototype.hasOwnProperty.call(record, name)) problems.push(`${path}.${name}: required`);
    }
    for (const [name, sub] of Object.entries(properties)) {
      if (Object.prototype.hasOwnProperty.call(record, name)) problems.push(...checkAgainstSchema(record[name], sub, `${path}.${name}`));
    }
    if (schema['additionalProperties'] === false) {
      for (const name of Object.keys(record)) if (!Object.prototype.hasOwnProperty.call(properties, name)) problems.push(`${path}.${name}: not allowed`);
    }
  }
  return problems;
}
