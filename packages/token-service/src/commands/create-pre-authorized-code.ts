import { AppError, defineCommand } from '@tessera/platform';
import { hashToken, newOpaqueToken } from '../domain/random.js';
import { credentialGrantStore } from '../oid4vci/credential-grant-store.js';
import { checkGrantTarget, grantTtlSeconds, type CredentialGrantServices } from '../oid4vci/grant-input.js';
import { txCodeMac } from '../oid4vci/tx-code.js';

export interface CreatePreAuthorizedCodeInput {
  correlationId: string;
  credentialConfigurationIds: string[];
  preAuthorizedCode?: string;
  txCode?: string;
  ttlSeconds?: number;
}

/** A given code carries at least 128 bits when it has 22 characters of the base64url alphabet (OpenID4VCI §4.1.1). */
const GIVEN_CODE = /^[A-Za-z0-9._~-]{22,512}$/;
/** A tx_code is typed by a person (§4.1.1 `tx_code`): printable ASCII, at most 64 characters. */
const TX_CODE = /^[\x21-\x7e]{1,64}$/;

/**
 * Offer side of the pre-authorized code grant (OpenID4VCI 1.0 §4.1.1): a code bound to one issuance session and
 * its credential configurations, generated (256 bits) unless the offer gives one, stored as its SHA-256 hash, with
 * the PIN (`tx_code`) stored only as a keyed MAC (oid4vci/tx-code.ts). The code is returned once, never the PIN.
 */
export function createPreAuthorizedCode(s: CredentialGrantServices) {
  return defineCommand<CreatePreAuthorizedCodeInput, { preAuthorizedCode: string; expiresAt: Date }>({
    id: 'token-service.credential-grants.create-pre-authorized-code',
    access: 'write',
    requiredScope: s.scope,
    businessIds: (input) => ({ correlationId: input.correlationId }),
    run: async (cmd, input) => {
      const target = checkGrantTarget(input);
      if (input.preAuthorizedCode !== undefined && !GIVEN_CODE.test(input.preAuthorizedCode))
        throw new AppError(
          'invalid_request',
          'preAuthorizedCode must be 22 to 512 unreserved characters (≥128 bits).',
          {
            field: 'preAuthorizedCode',
          },
        );
      if (input.txCode !== undefined && !TX_CODE.test(input.txCode))
        throw new AppError('invalid_request', 'txCode must be 1 to 64 printable ASCII characters.', {
          field: 'txCode',
        });
      const ttl = grantTtlSeconds(input.ttlSeconds, s.config.preAuthorizedCodeTtlSeconds, s.config.maxTtlSeconds);
      const code = input.preAuthorizedCode ?? newOpaqueToken();
      const codeHash = hashToken(code);
      const now = s.clock.now();
      const expiresAt = new Date(now.getTime() + ttl * 1000);
      // The grant commits with its audit event, and with the offer that carries it when the issuer's unit is open.
      await cmd.unitOfWork(async (sql) => {
        const mac =
          input.txCode === undefined ? null : await txCodeMac(s.keys, cmd.tenantId, codeHash, input.txCode, sql);
        const inserted = await credentialGrantStore.insert(sql, {
          codeHash,
          kind: 'pre-authorized_code',
          ...target,
          txCodeMac: mac,
          createdAt: now,
          expiresAt,
        });
        if (!inserted)
          throw new AppError('conflict', 'This pre-authorized code is already in use.', { field: 'preAuthorizedCode' });
      });
      return { preAuthorizedCode: code, expiresAt };
    },
  });
}
