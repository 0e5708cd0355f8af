import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, PLATFORM_ENV } from '@tessera/platform';
import { IDENTITY_ENV, IdentityConfigSchema } from './config.js';

const Schema = Type.Object({ identity: IdentityConfigSchema });

describe('identity configuration', () => {
  it('defaults to 000 §8: 730 days of inactivity, 30 days of soft deletion', () => {
    expect(loadConfig(Schema, { env: {}, bindings: IDENTITY_ENV })).toEqual({
      identity: { retention: { inactiveDays: 730, softDeleteDays: 30 }, migration: { batchSize: 500 } },
    });
  });

  it('reads RETENTION_INACTIVE_DAYS and RETENTION_SOFT_DELETE_DAYS, beside the platform variables', () => {
    const config = loadConfig(Schema, {
      env: {
        RETENTION_INACTIVE_DAYS: '365',
        RETENTION_SOFT_DELETE_DAYS: '7',
        TESSERA_IDENTITY__MIGRATION__BATCH_SIZE: '50',
      },
      bindings: [...PLATFORM_ENV, ...IDENTITY_ENV],
    });
    expect(config.identity).toEqual({
      retention: { inactiveDays: 365, softDeleteDays: 7 },
      migration: { batchSize: 50 },
    });
  });

  it('names the key of an invalid value', () => {
    for (const [env, key] of [
      ['RETENTION_INACTIVE_DAYS', 'identity.retention.inactiveDays'],
      ['RETENTION_SOFT_DELETE_DAYS', 'identity.retention.softDeleteDays'],
    ] as const) {
      let error: unknown;
      try {
        loadConfig(Schema, { env: { [env]: '-1' }, bindings: IDENTITY_ENV });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).key).toBe(key);
    }
  });
});
