import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JWK } from 'jose';
import { createJsonFileOnce } from '../common/persist-json-file.js';
import type { Clock } from '../common/clock.js';
import { generateEs256Key, toPublicJwk } from '../crypto/generate-es256-key.js';
import {
  createCertificateAuthority,
  createLeafCertificate,
  type CertificateAuthority,
} from '../x509/create-certificates.js';

/** Everything that makes the issuer the same issuer across runs: its signing key and its X.509 chain. */
export interface IssuerMaterial {
  version: 1;
  issuerPrivateJwk: JWK;
  certificateAuthority: CertificateAuthority;
  leafCertificatePem: string;
  /** The `iss` used when the issuer identifies itself with its certificate (SD-JWT VC §3.5, x5c). */
  x509IssuerUri: string;
}

export const ISSUER_MATERIAL_FILE = 'issuer.json';
export const ISSUER_CA_FILE = 'issuer-ca.pem';

async function createIssuerMaterial(x509IssuerUri: string, clock: Clock): Promise<IssuerMaterial> {
  const issuerPrivateJwk = await generateEs256Key();
  const certificateAuthority = await createCertificateAuthority(
    'Tessera Test Issuer CA',
    clock,
    await generateEs256Key(),
  );
  const leafCertificatePem = await createLeafCertificate({
    authority: certificateAuthority,
    publicJwk: toPublicJwk(issuerPrivateJwk),
    commonName: 'Tessera Test Issuer',
    names: { uris: [x509IssuerUri], dnsNames: [new URL(x509IssuerUri).hostname] },
    clock,
  });
  return { version: 1, issuerPrivateJwk, certificateAuthority, leafCertificatePem, x509IssuerUri };
}

/**
 * Loads the issuer key and certificates from `dataDir`, creating them on first use; without a `dataDir` they live in
 * memory only. The CA certificate is also written as PEM beside them, for operators configuring an X.509 anchor.
 */
export async function loadIssuerMaterial(input: {
  dataDir?: string;
  x509IssuerUri: string;
  clock: Clock;
}): Promise<{ material: IssuerMaterial; caCertificatePath?: string }> {
  if (!input.dataDir) return { material: await createIssuerMaterial(input.x509IssuerUri, input.clock) };
  const material = await createJsonFileOnce(join(input.dataDir, ISSUER_MATERIAL_FILE), () =>
    createIssuerMaterial(input.x509IssuerUri, input.clock),
  );
  const caCertificatePath = join(input.dataDir, ISSUER_CA_FILE);
  await writeFile(caCertificatePath, material.certificateAuthority.certificatePem);
  return { material, caCertificatePath };
}
