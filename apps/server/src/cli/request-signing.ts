import { createCertificateRequestCommand, createRequestSigner } from '@tessera/bridge';
import type { ServerConfig } from '../config.js';
import { runAsOperator } from './operator.js';

export const REQUEST_SIGNING_USAGE =
  'usage: npm run request-signing -- csr [--subject "CN=verifier.example.com, O=Example"] [--alt-name <dns or ip>]... ' +
  '[--tenant <id> (of the audit event; default: the default tenant)]';

/**
 * `npm run request-signing -- csr`: prints a PKCS#10 request (PEM) for the bridge's request-signing key, creating the
 * key in the key manager if it has none yet. A CA certifies it, and the chain it answers goes to
 * `bridge.requestSigning.certificateChainPem` (docs/deployment.md). Run with the deployment's configuration: the same
 * database and master key as the bridge, and its publicBaseUrl, whose host is the default subject and name.
 */
export async function runRequestSigningCommand(
  config: ServerConfig,
  action: string | undefined,
  options: { subject?: string; altNames?: string[]; tenants?: string[] },
): Promise<number> {
  // The key is the deployment's; the audit event goes to the chain of the named tenant, else the default one.
  const tenantId = options.tenants?.[0] ?? config.tenancy.defaultTenant;
  if (action !== 'csr' || !tenantId || (options.tenants?.length ?? 0) > 1) {
    console.error(REQUEST_SIGNING_USAGE);
    return 2;
  }
  return runAsOperator(config, tenantId, async (platform, ctx) => {
    const command = createCertificateRequestCommand(createRequestSigner(platform, config.bridge));
    const { pem } = await platform.commands.execute(command, ctx, {
      ...(options.subject !== undefined ? { subject: options.subject } : {}),
      ...(options.altNames !== undefined ? { altNames: options.altNames } : {}),
    });
    return pem;
  });
}
