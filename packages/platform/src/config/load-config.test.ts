import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Type from 'typebox';
import { ConfigError, loadConfig, type LoadConfigOptions } from './load-config.js';
import { PlatformConfigSchema, type PlatformConfig } from './platform-schema.js';
import { parseIsoDurationSeconds } from './durations.js';

/** Configuration: file + environment + overrides, converted, defaulted and validated (docs/configuration.md). */

const dir = mkdtempSync(join(tmpdir(), 'tessera-config-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function writeConfig(extension: 'yaml' | 'yml' | 'json', text: string): string {
  const path = join(dir, `config-${++files}.${extension}`);
  writeFileSync(path, text);
  return path;
}

// The environment is always given, so that the machine's own variables never reach a test.
const load = (options: LoadConfigOptions = {}): PlatformConfig =>
  loadConfig(PlatformConfigSchema, { env: {}, ...options });

function configError(options: LoadConfigOptions): ConfigError {
  try {
    load(options);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected the configuration to be refused');
}

describe('loadConfig: defaults', () => {
  it('applies the documented defaults to an empty configuration', () => {
    const config = load();
    expect(config.profile).toBe('development');
    expect(config.roles).toEqual([
      'bridge',
      'token',
      'portal',
      'designs',
      'issuance',
      'status-lists',
      'parties',
      'signing',
    ]);
    expect(config.server.ports).toMatchObject({ bridge: 8090, tokenInternal: 8080, tokenExternal: 8092, portal: 3000 });
    expect(config.server.host).toBe('0.0.0.0');
    expect(config.server.trustProxy).toBe(false);
    expect(config.database.maxPoolSize).toBe(5);
    expect(config.database.url).toBeUndefined();
    expect(config.rateLimit).toEqual({
      enabled: true,
      requestsPerWindow: 600,
      windowSeconds: 60,
      failedAuthenticationsPerAddress: 20,
      failedAuthenticationsPerClient: 200,
    });
    expect(config.audit.events.signing.enabled).toBe(false);
    expect(config.audit.events.signing.checkpointEveryEvents).toBe(100);
    expect(config.tenancy.jwtClaim).toBe('tenant_id');
    expect(config.auth).toMatchObject({
      issuers: [],
      rolesClaim: 'roles',
      clockToleranceSeconds: 30,
      jwksCooldownSeconds: 30,
    });
    expect(config.logging.level).toBe('info');
  });

  it('reads process.env when no environment is given', () => {
    const name = 'TESSERA_BUILD__VERSION';
    const previous = process.env[name];
    process.env[name] = '9.9.9-test';
    try {
      expect(loadConfig(PlatformConfigSchema).build.version).toBe('9.9.9-test');
    } finally {
      if (previous === undefined) delete process.env[name];
      else process.env[name] = previous;
    }
  });
});

describe('loadConfig: defaults inside records', () => {
  const Entry = Type.Object(
    {
      uris: Type.Array(Type.String(), { default: [] }),
      settings: Type.Object({ ttl: Type.String({ default: 'PT1H' }) }, { default: {}, additionalProperties: false }),
      nested: Type.Record(Type.String(), Type.Object({ on: Type.Boolean({ default: true }) }), { default: {} }),
    },
    { additionalProperties: false },
  );
  const Schema = Type.Object({ section: Type.Object({ clients: Type.Record(Type.String(), Entry, { default: {} }) }) });

  it('gives each record value its defaults, at any depth, and keeps what was set', () => {
    const config = loadConfig(Schema, {
      env: {},
      overrides: { section: { clients: { a: {}, b: { uris: ['x'], settings: { ttl: 'P1D' }, nested: { n: {} } } } } },
    });
    expect(config.section.clients).toEqual({
      a: { uris: [], settings: { ttl: 'PT1H' }, nested: {} },
      b: { uris: ['x'], settings: { ttl: 'P1D' }, nested: { n: { on: true } } },
    });
  });

  it('still names a bad value inside a record value', () => {
    const error = (() => {
      try {
        loadConfig(Schema, { env: {}, overrides: { section: { clients: { a: { settings: { tll: 'PT1H' } } } } } });
        return undefined;
      } catch (e) {
        return e as ConfigError;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error?.key).toBe('section.clients.a.settings.tll');
    expect(error?.message).toMatch(/not a known key/);
  });
});

describe('loadConfig: environment', () => {
  it('sets the database URL and converts the pool size to an integer', () => {
    const config = load({
      env: { DATABASE_URL: 'postgres://u@db.example:5432/tessera', DATABASE_MAX_POOL_SIZE: '12' },
    });
    expect(config.database.url).toBe('postgres://u@db.example:5432/tessera');
    expect(config.database.maxPoolSize).toBe(12);
  });

  it('splits ROLES on commas into a list', () => {
    expect(load({ env: { ROLES: 'bridge,token' } }).roles).toEqual(['bridge', 'token']);
    expect(load({ env: { ROLES: ' designs , status-lists ,' } }).roles).toEqual(['designs', 'status-lists']);
  });

  it('maps NODE_ENV to the profile', () => {
    expect(load({ env: { NODE_ENV: 'production' } }).profile).toBe('production');
    expect(load({ env: { NODE_ENV: 'test' } }).profile).toBe('test');
    expect(load({ env: { NODE_ENV: 'staging' } }).profile).toBe('development');
  });

  it('maps DATA_DIR to the embedded database directory', () => {
    expect(load({ env: { DATA_DIR: '/var/lib/tessera/' } }).database.dataDir).toBe('/var/lib/tessera/pglite');
  });

  it('sets any key through the generic TESSERA_ prefix, converting to the schema type', () => {
    const config = load({
      env: {
        TESSERA_AUDIT__EVENTS__SIGNING__ENABLED: 'true',
        TESSERA_RATE_LIMIT__WINDOW_SECONDS: '15',
        TESSERA_RATE_LIMIT__ENABLED: 'false',
      },
    });
    expect(config.audit.events.signing.enabled).toBe(true);
    expect(config.rateLimit.windowSeconds).toBe(15);
    expect(config.rateLimit.enabled).toBe(false);
    expect(config.rateLimit.requestsPerWindow).toBe(600);
  });

  it('parses a generic value that starts like JSON', () => {
    const config = load({
      env: {
        TESSERA_AUTH__ISSUERS: '[{"issuer":"https://i.example","jwksUri":"https://i.example/jwks","audience":"api"}]',
      },
    });
    expect(config.auth.issuers).toEqual([
      {
        issuer: 'https://i.example',
        jwksUri: 'https://i.example/jwks',
        audience: 'api',
        algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA'],
      },
    ]);
    expect(configError({ env: { TESSERA_AUTH__ISSUERS: '[not json' } }).key).toBe('TESSERA_AUTH__ISSUERS');
  });

  it('sets a port through the generic prefix', () => {
    expect(load({ env: { TESSERA_SERVER__PORTS__BRIDGE: '8091' } }).server.ports.bridge).toBe(8091);
  });

  it('ignores empty variables', () => {
    const { database } = load({ env: { DATABASE_MAX_POOL_SIZE: '', DATABASE_URL: '' } });
    expect(database.maxPoolSize).toBe(5);
    expect(database.url).toBeUndefined();
  });
});

describe('loadConfig: files and precedence', () => {
  it('reads a YAML file', () => {
    const file = writeConfig(
      'yaml',
      [
        'roles: [designs, issuance]',
        'server:',
        '  ports:',
        '    designs: 9094',
        'database:',
        '  maxPoolSize: 20',
        'rateLimit:',
        '  enabled: false',
        '',
      ].join('\n'),
    );
    const config = load({ file });
    expect(config.roles).toEqual(['designs', 'issuance']);
    expect(config.server.ports.designs).toBe(9094);
    expect(config.server.ports.bridge).toBe(8090);
    expect(config.database.maxPoolSize).toBe(20);
    expect(config.rateLimit.enabled).toBe(false);
  });

  it('reads a JSON file', () => {
    const file = writeConfig(
      'json',
      JSON.stringify({ database: { url: 'postgres://file/db', maxPoolSize: 7 }, tenancy: { defaultTenant: 'acme' } }),
    );
    const config = load({ file });
    expect(config.database).toMatchObject({ url: 'postgres://file/db', maxPoolSize: 7 });
    expect(config.tenancy.defaultTenant).toBe('acme');
  });

  it('takes the file from TESSERA_CONFIG when none is given', () => {
    const file = writeConfig('yml', 'logging:\n  level: debug\n');
    expect(load({ env: { TESSERA_CONFIG: file } }).logging.level).toBe('debug');
  });

  it('treats an empty file as an empty configuration', () => {
    expect(load({ file: writeConfig('yaml', '') }).database.maxPoolSize).toBe(5);
  });

  it('lets overrides win over the environment, and the environment win over the file', () => {
    const file = writeConfig(
      'yaml',
      'database:\n  maxPoolSize: 3\n  url: postgres://file/db\nrateLimit:\n  windowSeconds: 10\n',
    );
    const env = { DATABASE_MAX_POOL_SIZE: '8', DATABASE_URL: 'postgres://env/db' };
    const fromEnv = load({ file, env });
    expect(fromEnv.database).toMatchObject({ maxPoolSize: 8, url: 'postgres://env/db' });
    expect(fromEnv.rateLimit.windowSeconds).toBe(10);
    const overridden = load({ file, env, overrides: { database: { maxPoolSize: 9 } } });
    expect(overridden.database).toMatchObject({ maxPoolSize: 9, url: 'postgres://env/db' });
    expect(overridden.rateLimit.windowSeconds).toBe(10);
  });

  it('refuses a file that cannot be read, naming TESSERA_CONFIG', () => {
    expect(configError({ file: join(dir, 'missing.yaml') }).key).toBe('TESSERA_CONFIG');
  });

  it('refuses a file that holds no object', () => {
    expect(configError({ file: writeConfig('yaml', '- a\n- b\n') }).key).toBe('TESSERA_CONFIG');
  });

  it('refuses a file that is not valid JSON with a ConfigError naming TESSERA_CONFIG', () => {
    expect(configError({ file: writeConfig('json', '{"database": ') }).key).toBe('TESSERA_CONFIG');
  });
});

describe('loadConfig: invalid values stop the start naming the key', () => {
  it('refuses a pool size that is not a number', () => {
    const error = configError({ env: { DATABASE_MAX_POOL_SIZE: 'abc' } });
    expect(error.key).toBe('database.maxPoolSize');
    expect(error.message).toContain('database.maxPoolSize');
  });

  it('refuses a pool size that is not a whole number instead of truncating it', () => {
    expect(configError({ env: { DATABASE_MAX_POOL_SIZE: '1.5' } }).key).toBe('database.maxPoolSize');
  });

  it('refuses a pool size outside its bounds', () => {
    expect(configError({ env: { DATABASE_MAX_POOL_SIZE: '0' } }).key).toBe('database.maxPoolSize');
    expect(configError({ env: { DATABASE_MAX_POOL_SIZE: '1001' } }).key).toBe('database.maxPoolSize');
  });

  it('refuses an unknown role', () => {
    const error = configError({ env: { ROLES: 'bogus' } });
    expect(error.key.startsWith('roles')).toBe(true);
    expect(configError({ env: { ROLES: 'bridge,bogus' } }).key.startsWith('roles')).toBe(true);
  });

  it('refuses an unknown key in a file, naming it', () => {
    const error = configError({ file: writeConfig('yaml', 'server:\n  bogusKey: 1\n') });
    expect(error.key).toBe('server.bogusKey');
    expect(error.message).toContain('server.bogusKey');
    expect(configError({ file: writeConfig('json', '{"audit":{"events":{"signing":{"enabld":true}}}}') }).key).toBe(
      'audit.events.signing.enabld',
    );
  });

  it('refuses a negative port from a file and from the environment', () => {
    expect(configError({ file: writeConfig('yaml', 'server:\n  ports:\n    bridge: -1\n') }).key).toBe(
      'server.ports.bridge',
    );
    expect(configError({ env: { TESSERA_SERVER__PORTS__BRIDGE: '-1' } }).key).toBe('server.ports.bridge');
    expect(configError({ overrides: { server: { ports: { portal: 65536 } } } }).key).toBe('server.ports.portal');
  });

  it('refuses a boolean that is not one', () => {
    expect(configError({ env: { TESSERA_AUDIT__EVENTS__SIGNING__ENABLED: 'maybe' } }).key).toBe(
      'audit.events.signing.enabled',
    );
  });

  it('refuses a rate-limit window below one second', () => {
    expect(configError({ env: { TESSERA_RATE_LIMIT__WINDOW_SECONDS: '0' } }).key).toBe('rateLimit.windowSeconds');
  });

  it('refuses a default tenant that is not a tenant id', () => {
    expect(configError({ env: { DEFAULT_TENANT: 'Not A Slug' } }).key).toBe('tenancy.defaultTenant');
  });
});

describe('parseIsoDurationSeconds', () => {
  it.each([
    ['PT1H', 3600],
    ['P1D', 86_400],
    ['PT15M', 900],
    ['P1W', 604_800],
    ['PT0.5S', 0.5],
    ['PT30S', 30],
    ['P1DT2H3M4S', 86_400 + 7200 + 180 + 4],
    ['PT0S', 0],
  ])('%s is %d seconds', (text, seconds) => {
    expect(parseIsoDurationSeconds(text)).toBe(seconds);
  });

  it.each([['P'], ['PT'], ['1H'], ['P1Y'], ['P1M'], ['P1DT'], [''], ['PT1.5'], ['-PT1H'], ['PT1H ']])(
    'refuses %j',
    (text) => {
      expect(() => parseIsoDurationSeconds(text)).toThrow(/not an ISO 8601 duration/);
    },
  );
});
