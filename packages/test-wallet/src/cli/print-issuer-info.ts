import { resolve } from 'node:path';
import { DEMO_VC_TYPE, DEMO_VCT } from '../development/demo-constants.js';
import type { TestIssuer } from '../issuer/create-test-issuer.js';
import type { CliIo } from './cli-io.js';

/** What an operator needs to make a verifier trust the development issuer. */
export function printIssuerInfo(issuer: TestIssuer, json: boolean, io: CliIo): void {
  const info = {
    issuerId: issuer.issuerId,
    keyId: issuer.keyId,
    jwks: issuer.jwks(),
    x509IssuerUri: issuer.x509.issuerUri,
    caCertificatePath: issuer.x509.caCertificatePath ? resolve(issuer.x509.caCertificatePath) : undefined,
    statusBaseUrl: issuer.statusBaseUrl,
    statusListUris: issuer.statusListUris(),
    sdJwtVcVct: DEMO_VCT,
    jwtVcType: DEMO_VC_TYPE,
  };
  if (json) {
    io.out(JSON.stringify(info, null, 2));
    return;
  }
  io.out(`Issuer identifier (did:jwk): ${info.issuerId}`);
  io.out(`Issuer key id:               ${info.keyId}`);
  io.out(`Issuer CA certificate (PEM): ${info.caCertificatePath ?? '(in memory)'}`);
  io.out(`Issuer URI used with x5c:    ${info.x509IssuerUri}`);
  io.out(`Status base URL:             ${info.statusBaseUrl ?? '(none)'}`);
  io.out(`SD-JWT VC vct:               ${info.sdJwtVcVct}`);
  io.out(`jwt_vc_json type:            ${info.jwtVcType}`);
}
