import type { ValueKind, WidgetHint } from '../domain/enums.js';
import type { Claim, PathElement } from '../domain/records.js';
import type { SourceMapper } from './mapper.js';
import { isRecord, sourceInvalid, str } from './common.js';

/**
 * JSON Schema (2020-12 and draft-07; VC JSON Schema): the schema's `title` and `description` are the display, each
 * leaf property a claim (objects recursed, arrays as "any element"), its `title` the label, `required` (in the
 * property's own object) the mandatory flag, `type` and `format` the value kind and widget. A schema states no language: its texts are in
 * `designs.defaultLocale`. `$id` binds the design (JSON_SCHEMA_ID). Local `$ref`s into `$defs`/`definitions` are
 * followed to a depth of 8; remote ones are not fetched.
 */
const MAX_DEPTH = 8;

function kindOf(schema: Record<string, unknown>): [ValueKind, WidgetHint] {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  const format = str(schema.format);
  if (type === 'string') {
    if (format === 'date') return ['DATE', 'DATE'];
    if (format === 'date-time') return ['DATE_TIME', 'DATE_TIME'];
    if (format === 'email') return ['STRING', 'EMAIL'];
    if (format === 'uri' || format === 'iri') return ['STRING', 'URL'];
    if (str(schema.contentMediaType)?.startsWith('image/')) return ['IMAGE', 'IMAGE'];
    return ['STRING', 'TEXT'];
  }
  if (type === 'integer') return ['INTEGER', 'NUMBER'];
  if (type === 'number') return ['NUMBER', 'NUMBER'];
  if (type === 'boolean') return ['BOOLEAN', 'CHECKBOX'];
  if (type === 'array') return ['ARRAY', 'MULTILINE_TEXT'];
  if (type === 'object') return ['OBJECT', 'TEXT'];
  return ['STRING', 'TEXT'];
}

export const jsonSchemaMapper: SourceMapper = {
  sourceType: 'JSON_SCHEMA',
  kinds: ['CREDENTIAL'],
  accept: 'application/schema+json, application/json;q=0.9',
  contentTypes: ['application/schema+json', 'application/json'],
  async map(payload, ctx) {
    if (!isRecord(payload)) throw sourceInvalid('not a JSON object');
    const defs = {
      ...(isRecord(payload.definitions) ? payload.definitions : {}),
      ...(isRecord(payload.$defs) ? payload.$defs : {}),
    };
    const deref = (node: Record<string, unknown>): Record<string, unknown> => {
      const ref = str(node.$ref);
      const m = ref ? /^#\/(?:\$defs|definitions)\/(.+)$/.exec(ref) : null;
      const target = m ? defs[decodeURIComponent(m[1]!)] : undefined;
      return isRecord(target) ? { ...target, ...node, $ref: undefined } : node;
    };
    const locale = ctx.defaultLocale;
    const claims: Claim[] = [];
    const walk = (node: Record<string, unknown>, prefix: PathElement[], required: boolean, depth: number) => {
      const schema = deref(node);
      if (depth > MAX_DEPTH) return;
      const props = isRecord(schema.properties) ? schema.properties : null;
      if (props && prefix.length < MAX_DEPTH) {
        const req = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
        for (const [name, child] of Object.entries(props))
          if (isRecord(child)) walk(child, [...prefix, { kind: 'Property', name }], req.has(name), depth + 1);
        return;
      }
      if (schema.type === 'array' && isRecord(schema.items) && isRecord(deref(schema.items).properties)) {
        walk(schema.items, [...prefix, { kind: 'AnyIndex', name: '*' }], required, depth + 1);
        return;
      }
      if (prefix.length === 0) return;
      const [valueKind, widgetHint] = kindOf(schema);
      const label = str(schema.title) ?? prefix[prefix.length - 1]!.name;
      claims.push({
        path: prefix,
        labels: [{ locale, label }],
        mandatory: required,
        order: claims.length + 1,
        valueKind,
        widgetHint,
      });
    };
    walk(payload, [], false, 0);
    const name = str(payload.title);
    if (!name && claims.length === 0) throw sourceInvalid('neither a title nor properties');
    const displays = name
      ? [{ locale, name, ...(str(payload.description) ? { description: str(payload.description)! } : {}) }]
      : [];
    const id = str(payload.$id);
    return [{ bindings: id ? [{ key: 'JSON_SCHEMA_ID', value: id }] : [], document: { displays, claims } }];
  },
};
