import { AppError, type Clock, type Database, type KeyManager } from '@tessera/platform';
import type { Oid4vciGrantsConfig } from '../config.js';

/** What the offer-side commands need: the platform's parts and the `tokenService.oid4vci` section. */
export interface CredentialGrantServices {
  db: Database;
  keys: KeyManager;
  clock: Clock;
  config: Oid4vciGrantsConfig;
  /** The scope of the in-process service principal that runs the offer-side commands. */
  scope: string;
}

const ID = /^[\x21-\x7e]{1,200}$/;

/** The session and the configurations a grant is for: both required, printable, bounded; ids deduplicated. */
export function checkGrantTarget(input: { correlationId: unknown; credentialConfigurationIds: unknown }): {
  correlationId: string;
  credentialConfigurationIds: string[];
} {
  if (typeof input.correlationId !== 'string' || !ID.test(input.correlationId))
    throw new AppError('invalid_request', 'correlationId must be 1 to 200 printable characters.', {
      field: 'correlationId',
    });
  const ids = input.credentialConfigurationIds;
  if (
    !Array.isArray(ids) ||
    ids.length === 0 ||
    ids.length > 50 ||
    ids.some((id) => typeof id !== 'string' || !ID.test(id))
  )
    throw new AppError('invalid_request', 'credentialConfigurationIds must hold 1 to 50 configuration ids.', {
      field: 'credentialConfigurationIds',
    });
  return { correlationId: input.correlationId, credentialConfigurationIds: [...new Set(ids as string[])] };
}

export function grantTtlSeconds(asked: number | undefined, fallback: number, max: number): number {
  if (asked === undefined) return fallback;
  if (!Number.isInteger(asked) || asked < 1 || asked > max)
    throw new AppError('invalid_request', `ttlSeconds must be an integer from 1 to ${max}.`, { field: 'ttlSeconds' });
  return asked;
}
