import { describe, expect, it } from 'vitest';
import { DcqlQuery } from 'dcql';
import { inPreferenceOrder } from './credential-preference.js';
import type { HeldCredential } from './decode-held-credential.js';
import { selectCredentials } from './select-credentials.js';

const claims = { service_id: 'S-1001', eduperson_principal_name: 'alice@uni.example' };

function sdJwt(id: string, vct: string, receivedAt?: string): HeldCredential {
  return {
    id,
    format: 'dc+sd-jwt',
    raw: `${id}~`,
    issuer: 'https://issuer.example',
    vct,
    claims: { vct, ...claims },
    binding: undefined,
    status: [],
    ...(receivedAt
      ? { receivedFrom: { credentialIssuer: 'https://issuer.example', credentialConfigurationId: 'c', receivedAt } }
      : {}),
  };
}

const query = (vct: string) => ({
  id: vct.replace(':', '-'),
  format: 'dc+sd-jwt' as const,
  meta: { vct_values: [vct] },
  claims: [{ path: ['service_id'] }],
});

describe('which held credential answers a query', () => {
  const own = sdJwt('own', 'urn:a');
  const older = sdJwt('older', 'urn:a', '2026-01-01T00:00:00.000Z');
  const newer = sdJwt('newer', 'urn:a', '2026-02-01T00:00:00.000Z');

  it('orders received credentials first, the most recent first, then the others as stored', () => {
    expect(inPreferenceOrder([own, older, newer]).map((c) => c.id)).toEqual(['newer', 'older', 'own']);
  });

  it('answers a credential query with the most preferred matching credential', () => {
    const dcql = DcqlQuery.parse({ credentials: [query('urn:a')] });
    const [selection] = selectCredentials(dcql, inPreferenceOrder([own, older, newer]));
    expect(selection!.credential.id).toBe('newer');
  });

  it('in a credential set, takes the option that presents the most preferred credential', () => {
    const received = sdJwt('received', 'urn:b', '2026-03-01T00:00:00.000Z');
    const dcql = DcqlQuery.parse({
      credentials: [query('urn:a'), query('urn:b')],
      credential_sets: [{ options: [['urn-a'], ['urn-b']], required: true }],
    });
    expect(selectCredentials(dcql, inPreferenceOrder([own, received])).map((s) => s.credential.id)).toEqual([
      'received',
    ]);
    // Among equals (nothing received), the verifier's first option.
    expect(selectCredentials(dcql, [own, sdJwt('other', 'urn:b')]).map((s) => s.credentialQueryId)).toEqual(['urn-a']);
  });
});
