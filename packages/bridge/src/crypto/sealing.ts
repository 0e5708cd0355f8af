import { JsonSealer, type KeyManager } from '@tessera/platform';

/**
 * Sealing of session secrets at rest (the response-decryption private key, the presented claims, the completion
 * result) through the key manager's envelope encryption (A256GCM under the key-encryption key `alias`, a fresh data
 * key per value), with the tenant, the session and the field as additional authenticated data: a sealed value
 * moved to another session or tenant fails to open. No plaintext secret or claim reaches a column.
 */
export const SESSION_SEALING_ALIAS = 'bridge-session-secrets';

/** The bridge's sealer: the platform's, under the bridge's alias. */
export class Sealer extends JsonSealer {
  constructor(keys: KeyManager, alias = SESSION_SEALING_ALIAS) {
    super(keys, alias);
  }
}

/** Additional authenticated data of a sealed session field. */
export const sessionAad = (
  tenantId: string,
  sessionId: string,
  field: 'response_key' | 'presented' | 'result' | 'match_candidates',
) => JSON.stringify(['bridge_sessions', tenantId, sessionId, field]);
