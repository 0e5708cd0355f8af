import Value from 'typebox/value';
import type { TSchema } from 'typebox';

interface SchemaShape {
  properties?: Record<string, TSchema>;
  patternProperties?: Record<string, TSchema>;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Applies the defaults inside the values of records (`Type.Record`, e.g. `tokenService.clients.<id>`), which
 * `Value.Default` of typebox 1.x does not descend into: a client configured in a file without `redirect-uris` or
 * `token-settings` gets their defaults as documented, instead of failing validation. Walks the schema's object
 * properties and record values; changes `value` in place and answers it.
 */
export function applyRecordDefaults(schema: TSchema, value: unknown): unknown {
  if (!isObject(value)) return value;
  const shape = schema as SchemaShape;
  for (const [key, propertySchema] of Object.entries(shape.properties ?? {})) {
    if (key in value) value[key] = applyRecordDefaults(propertySchema, value[key]);
  }
  const patterns = Object.entries(shape.patternProperties ?? {}).map(
    ([pattern, s]) => [new RegExp(pattern), s] as const,
  );
  if (patterns.length === 0) return value;
  for (const [key, entry] of Object.entries(value)) {
    const entrySchema = patterns.find(([pattern]) => pattern.test(key))?.[1];
    if (entrySchema) value[key] = applyRecordDefaults(entrySchema, Value.Default(entrySchema, entry));
  }
  return value;
}
