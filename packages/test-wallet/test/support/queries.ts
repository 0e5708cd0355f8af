import type { DcqlQuery } from 'dcql';
import { DEMO_VC_TYPE, DEMO_VCT } from '../../src/development/demo-constants.js';

export const ALICE = {
  service_id: 'demo-user-1',
  eduperson_principal_name: 'alice@demo.example',
  email: 'alice@demo.example',
  given_name: 'Alice',
  family_name: 'Doe',
};

/** A DCQL credential query for the demo SD-JWT VC asking for the named claims. */
export function sdJwtQuery(id: string, claims: string[]): DcqlQuery.Input['credentials'][number] {
  return {
    id,
    format: 'dc+sd-jwt',
    meta: { vct_values: [DEMO_VCT] },
    claims: claims.map((claim) => ({ path: [claim] })),
  };
}

/** A DCQL credential query for the demo jwt_vc_json credential asking for the named claims. */
export function jwtVcQuery(id: string, claims: string[]): DcqlQuery.Input['credentials'][number] {
  return {
    id,
    format: 'jwt_vc_json',
    meta: { type_values: [[DEMO_VC_TYPE]] },
    claims: claims.map((claim) => ({ path: ['credentialSubject', claim] })),
  };
}

export function queryOf(...credentials: DcqlQuery.Input['credentials']): DcqlQuery.Input {
  return { credentials: credentials as DcqlQuery.Input['credentials'] };
}
