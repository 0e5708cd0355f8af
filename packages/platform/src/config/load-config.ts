import { readFileSync } from 'node:fs';
import Value from 'typebox/value';
import type { TSchema, Static } from 'typebox';
import { parse as parseYaml } from 'yaml';
import { applyRecordDefaults } from './record-defaults.js';

/** A configuration error names the key (dotted path) and what is wrong with it; the start stops on it. */
export class ConfigError extends Error {
  constructor(
    readonly key: string,
    detail: string,
  ) {
    super(`configuration key "${key}": ${detail}`);
    this.name = 'ConfigError';
  }
}

/** An environment variable that sets one configuration key. */
export interface EnvBinding {
  env: string;
  key: string;
  /** How the string becomes a value; `list` splits on commas. Numbers and booleans follow the schema. */
  kind?: 'list' | 'json';
  /** Maps the raw value before it is set (e.g. NODE_ENV → profile). */
  map?: (raw: string) => unknown;
}

/** The documented environment variables of the platform (docs/configuration.md). */
export const PLATFORM_ENV: EnvBinding[] = [
  { env: 'NODE_ENV', key: 'profile', map: (v) => (v === 'production' || v === 'test' ? v : 'development') },
  { env: 'ROLES', key: 'roles', kind: 'list' },
  { env: 'HOST', key: 'server.host' },
  { env: 'DATABASE_URL', key: 'database.url' },
  { env: 'DATABASE_MAX_POOL_SIZE', key: 'database.maxPoolSize' },
  { env: 'DATA_DIR', key: 'database.dataDir', map: (v) => `${v.replace(/\/$/, '')}/pglite` },
  { env: 'REDIS_URL', key: 'redis.url' },
  { env: 'DEFAULT_TENANT', key: 'tenancy.defaultTenant' },
  { env: 'LOG_LEVEL', key: 'logging.level' },
  { env: 'MASTER_KEY', key: 'keys.masterKey' },
  { env: 'MASTER_KEY_FILE', key: 'keys.masterKeyFile' },
  { env: 'OTEL_EXPORTER_OTLP_ENDPOINT', key: 'telemetry.otlpEndpoint' },
  { env: 'OTEL_EXPORTER_OTLP_HEADERS', key: 'telemetry.otlpHeaders' },
  { env: 'OTEL_SERVICE_NAME', key: 'telemetry.serviceName' },
  { env: 'SOURCE_REVISION', key: 'build.revision' },
  { env: 'BUILD_TIME', key: 'build.builtAt' },
];

/** Prefix of the generic override: TESSERA_AUDIT__EVENTS__SIGNING__ENABLED=true sets audit.events.signing.enabled. */
export const GENERIC_ENV_PREFIX = 'TESSERA_';

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Path of a YAML or JSON file; `TESSERA_CONFIG` names it when not given. */
  file?: string;
  /** Values that win over the file and the environment (command-line flags, tests). */
  overrides?: Record<string, unknown>;
  bindings?: EnvBinding[];
}

const camel = (segment: string) => segment.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[part] = {};
    node = node[part] as Record<string, unknown>;
  }
  node[parts[parts.length - 1]!] = value;
}

function deepMerge(base: Record<string, unknown>, extra: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(extra)) {
    const prev = out[k];
    out[k] =
      typeof v === 'object' &&
      v !== null &&
      !Array.isArray(v) &&
      typeof prev === 'object' &&
      prev !== null &&
      !Array.isArray(prev)
        ? deepMerge(prev as Record<string, unknown>, v as Record<string, unknown>)
        : v;
  }
  return out;
}

function readFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new ConfigError('TESSERA_CONFIG', `cannot read configuration file ${file}: ${(cause as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (cause) {
    throw new ConfigError('TESSERA_CONFIG', `cannot parse configuration file ${file}: ${(cause as Error).message}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed))
    throw new ConfigError('TESSERA_CONFIG', 'the file must hold an object');
  return parsed as Record<string, unknown>;
}

function fromEnv(env: NodeJS.ProcessEnv, bindings: EnvBinding[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const binding of bindings) {
    const raw = env[binding.env];
    if (raw === undefined || raw === '') continue;
    let value: unknown = raw;
    if (binding.map) value = binding.map(raw);
    else if (binding.kind === 'list')
      value = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
    else if (binding.kind === 'json') value = parseJsonEnv(binding.env, raw);
    setPath(out, binding.key, value);
  }
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(GENERIC_ENV_PREFIX) || name === 'TESSERA_CONFIG' || raw === undefined) continue;
    const key = name.slice(GENERIC_ENV_PREFIX.length).split('__').map(camel).join('.');
    setPath(out, key, raw.startsWith('[') || raw.startsWith('{') ? parseJsonEnv(name, raw) : raw);
  }
  return out;
}

function parseJsonEnv(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw new ConfigError(name, 'is not valid JSON');
  }
}

const toDotted = (instancePath: string) => instancePath.replace(/^\//, '').replaceAll('/', '.') || '(root)';

/**
 * Loads file + environment + overrides, converts strings to the schema's types, applies the defaults and
 * validates. The first invalid key stops the start with a message naming it.
 */
export function loadConfig<S extends TSchema>(schema: S, options: LoadConfigOptions = {}): Static<S> {
  const env = options.env ?? process.env;
  const file = options.file ?? env.TESSERA_CONFIG;
  let merged: Record<string, unknown> = file ? readFile(file) : {};
  merged = deepMerge(merged, fromEnv(env, options.bindings ?? PLATFORM_ENV));
  if (options.overrides) merged = deepMerge(merged, options.overrides);
  const converted = Value.Convert(schema, structuredClone(merged));
  assertLosslessNumbers(merged, converted, '');
  const withDefaults = applyRecordDefaults(schema, Value.Default(schema, converted));
  const errors = [...Value.Errors(schema, withDefaults)];
  if (errors.length > 0) {
    // Prefer the most specific error (deepest path); "additional properties" names the unknown key.
    const first = errors.sort((a, b) => b.instancePath.length - a.instancePath.length)[0]!;
    const extra = (first.params as { additionalProperties?: string[] }).additionalProperties;
    if (first.keyword === 'additionalProperties' && extra?.length) {
      const prefix = toDotted(first.instancePath);
      throw new ConfigError(prefix === '(root)' ? extra[0]! : `${prefix}.${extra[0]}`, 'is not a known key');
    }
    const key = toDotted(first.instancePath);
    const unknownKey = first.keyword === 'boolean' && first.message === 'schema is false';
    throw new ConfigError(
      key,
      unknownKey
        ? 'is not a known key'
        : `${first.message} (got ${JSON.stringify(valueAt(withDefaults, first.instancePath))})`,
    );
  }
  return withDefaults as Static<S>;
}

/** A string that became a number must have said exactly that number (no silent truncation of "1.5" or "0x10"). */
function assertLosslessNumbers(original: unknown, converted: unknown, path: string): void {
  if (typeof original === 'string' && typeof converted === 'number') {
    if (!/^[+-]?\d+(\.\d+)?$/.test(original.trim()) || Number(original) !== converted) {
      throw new ConfigError(path || '(root)', `must be a number (got ${JSON.stringify(original)})`);
    }
    return;
  }
  if (typeof original === 'object' && original !== null && typeof converted === 'object' && converted !== null) {
    for (const [k, v] of Object.entries(original)) {
      assertLosslessNumbers(v, (converted as Record<string, unknown>)[k], path ? `${path}.${k}` : k);
    }
  }
}

function valueAt(root: unknown, instancePath: string): unknown {
  let node: unknown = root;
  for (const part of instancePath.split('/').filter(Boolean)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[part];
  }
  return node;
}
