import { randomUUID } from 'node:crypto';
import { defineCommand } from '@tessera/platform';
import type { TokenServiceContext } from '../context.js';
import type { Client } from '../clients/client-registry.js';
import { oauthError } from '../domain/oauth-error.js';
import { hashToken } from '../domain/random.js';
import type { DpopHeader } from '../dpop/token-service-dpop.js';
import { grantStore } from '../storage/grant-store.js';
import { credentialGrantStore, type CredentialGrant } from '../oid4vci/credential-grant-store.js';
import { txCodeMatches } from '../oid4vci/tx-code.js';
import { parseCredentialAuthorizationDetails } from '../oid4vci/authorization-details.js';
import {
  createCredentialAccessToken,
  credentialAudience,
  type CredentialTokenResponse,
} from '../oid4vci/credential-access-token.js';

export interface ExchangePreAuthorizedCodeInput {
  /** The authenticated client, or null for a wallet without one (anonymous access, OpenID4VCI 1.0 §6.1). */
  client: Client | null;
  preAuthorizedCode: string;
  txCode: string | undefined;
  /** The wallet's narrowing of the offered configurations (§6.1), as sent. */
  authorizationDetails: string | undefined;
  /** RFC 8707: the credential issuer, when the wallet names it. */
  resource?: string | undefined;
  dpopProof: DpopHeader;
}

/** What the redemption's unit of work decided; refusals are answers, so that the failures it counted commit. */
type Redemption =
  | { kind: 'redeemed'; grant: CredentialGrant }
  | { kind: 'unknown' | 'expired' | 'locked' | 'tx_code_missing' | 'tx_code_unexpected' }
  | { kind: 'replayed'; grant: CredentialGrant }
  | { kind: 'wrong_tx_code'; locked: boolean }
  | { kind: 'invalid_details'; description: string };

/**
 * The pre-authorized code grant (OpenID4VCI 1.0 §6.1, §6.3): single use, short-lived, the transaction code compared
 * in constant time with its keyed MAC, wrong codes counted and the code locked after
 * `tokenService.oid4vci.txCodeMaxAttempts` of them. The code's row is locked for the unit of work, so that of
 * concurrent redemptions exactly one wins and the others see it redeemed. A DPoP proof, when presented, binds the
 * token (RFC 9449 §5) and is checked before the code is touched; with `requireDpop` (HAIP 1.0) one is required.
 * A second presentation of a redeemed code is refused and revokes the token the first one issued (RFC 6749 §4.1.2,
 * applied to this grant).
 */
export function exchangePreAuthorizedCode(ctx: TokenServiceContext) {
  return defineCommand<ExchangePreAuthorizedCodeInput, { response: CredentialTokenResponse; correlationId: string }>({
    id: 'token-service.token.pre-authorized-code',
    access: 'public',
    businessIds: (input, output) => ({
      grantType: 'pre-authorized_code',
      ...(input.client ? { clientId: input.client.clientId } : {}),
      ...(output ? { correlationId: output.correlationId } : {}),
    }),
    run: async (cmd, input) => {
      const tenantId = cmd.tenantId;
      const audience = credentialAudience(ctx, tenantId, input.resource);
      const dpopJkt = await ctx.dpop.verifyTokenRequest(tenantId, `${ctx.issuerFor(tenantId)}/token`, input.dpopProof, {
        always: true,
      });
      if (!dpopJkt && ctx.config.oid4vci.requireDpop)
        throw oauthError('invalid_dpop_proof', 'A DPoP proof is required for this grant.');
      const settings = ctx.config.oid4vci;
      const codeHash = hashToken(input.preAuthorizedCode);
      const jti = randomUUID();
      const now = ctx.clock.now();
      let configurationIds: string[] = [];

      const outcome = await ctx.platform.db.withTenant(tenantId, async (sql): Promise<Redemption> => {
        const grant = await credentialGrantStore.lock(sql, 'pre-authorized_code', codeHash);
        if (!grant) return { kind: 'unknown' };
        if (grant.redeemedAt) {
          await credentialGrantStore.markReplayed(sql, codeHash, now);
          if (grant.accessTokenJti)
            await grantStore.revokeAccessToken(
              sql,
              grant.accessTokenJti,
              new Date(grant.redeemedAt.getTime() + settings.accessTokenTtlSeconds * 1000),
            );
          return { kind: 'replayed', grant };
        }
        if (grant.lockedAt) return { kind: 'locked' };
        if (grant.expiresAt.getTime() <= now.getTime()) return { kind: 'expired' };
        if (grant.txCodeMac !== null && input.txCode === undefined) return { kind: 'tx_code_missing' };
        if (grant.txCodeMac === null && input.txCode !== undefined) return { kind: 'tx_code_unexpected' };
        if (grant.txCodeMac !== null && input.txCode !== undefined) {
          const ok = await txCodeMatches(ctx.platform.keys, tenantId, codeHash, input.txCode, grant.txCodeMac, sql);
          if (!ok) {
            const failures = await credentialGrantStore.recordTxCodeFailure(
              sql,
              codeHash,
              now,
              settings.txCodeMaxAttempts,
            );
            return { kind: 'wrong_tx_code', locked: failures >= settings.txCodeMaxAttempts };
          }
        }
        configurationIds = grant.credentialConfigurationIds;
        if (input.authorizationDetails !== undefined) {
          const asked = parseCredentialAuthorizationDetails(input.authorizationDetails, configurationIds);
          if (!asked.ok) return { kind: 'invalid_details', description: asked.description };
          configurationIds = asked.configurationIds;
        }
        await credentialGrantStore.markRedeemed(sql, codeHash, now, jti);
        return { kind: 'redeemed', grant };
      });

      switch (outcome.kind) {
        case 'unknown':
          throw oauthError('invalid_grant', 'The pre-authorized code is not valid.');
        case 'replayed':
          cmd.log.warn({ correlation: outcome.grant.correlationId }, 'pre-authorized code presented again');
          throw oauthError('invalid_grant', 'The pre-authorized code has already been used.');
        case 'locked':
          throw oauthError(
            'invalid_grant',
            'The pre-authorized code is locked after too many wrong transaction codes.',
          );
        case 'expired':
          throw oauthError('invalid_grant', 'The pre-authorized code has expired.');
        case 'tx_code_missing':
          throw oauthError('invalid_request', 'tx_code is required for this pre-authorized code.');
        case 'tx_code_unexpected':
          throw oauthError('invalid_request', 'This pre-authorized code takes no tx_code.');
        case 'wrong_tx_code':
          throw oauthError(
            'invalid_grant',
            outcome.locked
              ? 'The transaction code is wrong; the pre-authorized code is now locked.'
              : 'The transaction code is wrong.',
          );
        case 'invalid_details':
          throw oauthError('invalid_authorization_details', outcome.description);
        case 'redeemed':
          return {
            correlationId: outcome.grant.correlationId,
            response: await createCredentialAccessToken(ctx, tenantId, {
              audience,
              subject: `issuance:${outcome.grant.correlationId}`,
              correlationId: outcome.grant.correlationId,
              configurationIds,
              clientId: input.client?.clientId ?? null,
              dpopJkt,
              jti,
              now,
            }),
          };
      }
    },
  });
}
