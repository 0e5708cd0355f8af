import { defineCommand } from '@tessera/platform';
import { hashToken, newOpaqueToken } from '../domain/random.js';
import { credentialGrantStore } from '../oid4vci/credential-grant-store.js';
import { checkGrantTarget, grantTtlSeconds, type CredentialGrantServices } from '../oid4vci/grant-input.js';

export interface CreateIssuerStateInput {
  correlationId: string;
  credentialConfigurationIds: string[];
  ttlSeconds?: number;
}

/**
 * Offer side of the authorization_code grant (OpenID4VCI 1.0 §4.1.1 `issuer_state`): an opaque value (256 bits)
 * that the wallet passes back in its authorization request (§5.1.3) and that ties that request to the issuance
 * session and the credential configurations of the offer. Stored as its SHA-256 hash.
 */
export function createIssuerState(s: CredentialGrantServices) {
  return defineCommand<CreateIssuerStateInput, { issuerState: string; expiresAt: Date }>({
    id: 'token-service.credential-grants.create-issuer-state',
    access: 'write',
    requiredScope: s.scope,
    businessIds: (input) => ({ correlationId: input.correlationId }),
    run: async (cmd, input) => {
      const target = checkGrantTarget(input);
      const ttl = grantTtlSeconds(input.ttlSeconds, s.config.issuerStateTtlSeconds, s.config.maxTtlSeconds);
      const issuerState = newOpaqueToken();
      const now = s.clock.now();
      const expiresAt = new Date(now.getTime() + ttl * 1000);
      await cmd.unitOfWork((sql) =>
        credentialGrantStore.insert(sql, {
          codeHash: hashToken(issuerState),
          kind: 'issuer_state',
          ...target,
          txCodeMac: null,
          createdAt: now,
          expiresAt,
        }),
      );
      return { issuerState, expiresAt };
    },
  });
}
