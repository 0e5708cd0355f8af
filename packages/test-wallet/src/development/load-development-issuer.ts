import { join } from 'node:path';
import { createTestIssuer, type TestIssuer } from '../issuer/create-test-issuer.js';
import { DEFAULT_WALLET_DATA_DIR, DEVELOPMENT_STATUS_BASE_URL } from './demo-constants.js';

/**
 * The development issuer the CLI issues its demo credentials with, persisted in `<dataDir>/issuer`. The server's
 * development profile calls this with the same directory to learn the issuer identifier (`issuerId`, a did:jwk),
 * its key (`jwks()`) and its X.509 CA (`x509.caCertificatePem`), and so trusts the CLI's credentials.
 * Its status entries point at http://127.0.0.1:8500, where the CLI serves the lists while it runs.
 */
export function loadOrCreateDevelopmentIssuer(
  dataDir: string = DEFAULT_WALLET_DATA_DIR,
  options: { statusBaseUrl?: string } = {},
): Promise<TestIssuer> {
  return createTestIssuer({
    dataDir: join(dataDir, 'issuer'),
    statusBaseUrl: options.statusBaseUrl ?? DEVELOPMENT_STATUS_BASE_URL,
  });
}
