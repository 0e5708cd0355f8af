import { recordAuthenticationFailure, strictBody, type RoleApp } from '@tessera/platform';
import { contributeViaCallback, invalidCallbackToken } from '../commands/contribute-via-callback.js';
import { verifyCallbackToken } from '../crypto/callback-token.js';
import type { ContributionGroup } from '../domain/contribution.js';
import type { IssuanceServices } from '../services.js';
import { PIPELINE_BASE_PATH, PIPELINE_BODY_LIMIT_BYTES } from './base.js';
import { CallbackParams, ContributionBody } from './schemas.js';

/**
 * The callback ingress (001 §4.2, §5): no bearer token and no tenant resolution by the platform; the capability
 * token in the path is verified first (MAC under the platform's key, expiry, deferred phase) and names the tenant,
 * as a validated access token would. A token that does not verify is refused before anything runs (401).
 */
export function registerCallbackRoute(app: RoleApp, s: IssuanceServices): void {
  const command = contributeViaCallback(s);
  app.post(
    `${PIPELINE_BASE_PATH}/sessions/:correlationId/callbacks/:callbackToken`,
    {
      config: { auth: 'none', tenant: 'none' },
      bodyLimit: PIPELINE_BODY_LIMIT_BYTES,
      preValidation: strictBody(ContributionBody),
      schema: { tags: ['issuance pipeline'], operationId: command.id, params: CallbackParams, body: ContributionBody },
    },
    async (request, reply) => {
      const { correlationId, callbackToken } = request.params as { correlationId: string; callbackToken: string };
      const claims = await verifyCallbackToken(s.platform.keys, callbackToken, s.clock.now());
      if (!claims) {
        // An authentication event (rate-limited per source): the session the caller named, never the token.
        recordAuthenticationFailure(s.platform, request, {
          method: 'capability_token',
          reason: 'invalid_capability_token',
          claimedPrincipal: `callback:${correlationId.slice(0, 200)}`,
        });
        throw invalidCallbackToken();
      }
      const state = request.state;
      const output = await s.bus.execute(
        command,
        {
          tenantId: claims.tenantId,
          principal: {
            id: `callback:${claims.contributorId}`,
            kind: 'service',
            tenantId: claims.tenantId,
            roles: [],
            scopes: [],
            clientId: null,
            issuer: null,
          },
          correlationId: state.correlationId,
          trace: state.trace,
          get log() {
            return state.log;
          },
        },
        { claims, correlationId, groups: (request.body as { groups: ContributionGroup[] }).groups },
      );
      return reply.headers({ 'cache-control': 'no-store' }).send(output);
    },
  );
}
