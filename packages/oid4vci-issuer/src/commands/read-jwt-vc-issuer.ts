import { defineCommand } from '@tessera/platform';
import type { TenantEndpoint } from '../domain/tenant-endpoint.js';
import type { Oid4vciServices } from '../services.js';
import { READ_JWT_VC_ISSUER } from './ids.js';

/**
 * GET /.well-known/jwt-vc-issuer[/path] (SD-JWT VC §5, JWT VC Issuer Metadata): the credential issuer and the
 * public keys of its credential signing key (active and still published), so that a verifier resolves the `kid`
 * of a credential whose `iss` is the credential issuer.
 */
export const readJwtVcIssuer = (s: Oid4vciServices) =>
  defineCommand<{ endpoint: TenantEndpoint }, { issuer: string; jwks: { keys: Record<string, unknown>[] } }>({
    id: READ_JWT_VC_ISSUER,
    access: 'public',
    async run(ctx, { endpoint }) {
      const keys = await s.issuerKeys.published(ctx.tenantId);
      return { issuer: endpoint.credentialIssuer, jwks: { keys: keys as Record<string, unknown>[] } };
    },
  });
