import { defineCommand } from '@tessera/platform';
import { issuerMetadata, type ConfigurationDisplay } from '../domain/metadata.js';
import type { TenantEndpoint } from '../domain/tenant-endpoint.js';
import type { Oid4vciServices } from '../services.js';
import { READ_METADATA } from './ids.js';

/** The display of each configuration from the design registry when one is bound (issue 17 item 6). */
export async function designDisplays(
  s: Oid4vciServices,
  tenantId: string,
): Promise<Map<string, ConfigurationDisplay | null>> {
  const designs = s.designs;
  const entries = await Promise.all(
    Object.entries(s.config.credentialConfigurations).map(async ([id, c]) => {
      if (!designs || !c.design) return [id, null] as const;
      return [id, await designs.credentialDisplay(tenantId, id, c.vct)] as const;
    }),
  );
  return new Map(entries);
}

/** GET /.well-known/openid-credential-issuer[/path] (OpenID4VCI 1.0 §12.2.2): public. */
export const readMetadata = (s: Oid4vciServices) =>
  defineCommand<{ endpoint: TenantEndpoint }, Record<string, unknown>>({
    id: READ_METADATA,
    access: 'public',
    async run(ctx, { endpoint }) {
      return issuerMetadata(
        s.config,
        endpoint,
        s.authorizationServer.issuerFor(ctx.tenantId),
        await designDisplays(s, ctx.tenantId),
      );
    },
  });
