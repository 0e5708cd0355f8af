import { isAppError } from '@tessera/platform';
import { duplicate } from '../domain/errors.js';

/** The unique indexes of 0001_parties.sql, and the field and message of a 409 when one refuses a write. */
const UNIQUE: Record<string, { field: string; message: string }> = {
  parties_service_client: {
    field: 'oauthClientId',
    message: 'Another service of the tenant has this OAuth client id.',
  },
  parties_group_name: { field: 'name', message: 'Another group of the tenant has this name.' },
  party_registrations_tenant_id_scheme_value_key: {
    field: 'value',
    message: 'This registration is recorded for the tenant already.',
  },
  party_electronic_addresses_tenant_id_party_id_address_type_value_key: {
    field: 'value',
    message: 'The party has this address already.',
  },
  party_relationship_types_pkey: { field: 'code', message: 'This relationship type is registered already.' },
};

/** Names the field of a duplicate (409 ALREADY_EXISTS_ERROR) refused by a unique index; other errors pass. */
export function nameDuplicate(error: unknown): unknown {
  if (!isAppError(error) || error.code !== 'already_exists') return error;
  const constraint = (error.cause as { constraint?: string } | undefined)?.constraint;
  const known = constraint === undefined ? undefined : UNIQUE[constraint];
  return known ? duplicate(known.message, known.field) : error;
}
