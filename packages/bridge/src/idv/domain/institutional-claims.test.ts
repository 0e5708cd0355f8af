import { describe, expect, it } from 'vitest';
import { institutionalClaims } from './institutional-claims.js';

/** 000 §2.4: the service claim, eppn, email and sub are read; the service claim or sub at minimum. */
describe('institutional claims', () => {
  const claims = {
    sub: 'inst-1',
    service_id: 'S-1',
    eduperson_principal_name: 'p@uni.example',
    email: 'p@uni.example',
    given_name: 'P',
    acr: 'urn:x',
  };

  it('keeps the service claim, eppn and email (sub goes to the federation binding)', () => {
    expect(institutionalClaims({ subject: 'inst-1', claims }, 'service_id', [])).toEqual({
      ok: true,
      identityClaims: { service_id: 'S-1', eduperson_principal_name: 'p@uni.example', email: 'p@uni.example' },
    });
  });

  it('reads the deployment’s service claim name, and ignores empty or non-string values', () => {
    const result = institutionalClaims(
      { subject: 'inst-1', claims: { personnel_no: 'P-9', email: '', eduperson_principal_name: 7 } },
      'personnel_no',
      [],
    );
    expect(result).toEqual({ ok: true, identityClaims: { personnel_no: 'P-9' } });
  });

  it('passes with sub alone; fails when neither the service claim nor sub is there', () => {
    expect(institutionalClaims({ subject: 'inst-1', claims: {} }, 'service_id', [])).toEqual({
      ok: true,
      identityClaims: {},
    });
    expect(institutionalClaims({ subject: '', claims: { email: 'e@x' } }, 'service_id', [])).toEqual({
      ok: false,
      missing: ['service_id or sub'],
    });
  });

  it('fails on a claim the deployment requires (idv.requiredClaims), naming it', () => {
    const { service_id: _omitted, ...withoutService } = claims;
    expect(institutionalClaims({ subject: 'inst-1', claims: withoutService }, 'service_id', ['service_id'])).toEqual({
      ok: false,
      missing: ['service_id'],
    });
    expect(institutionalClaims({ subject: 'inst-1', claims }, 'service_id', ['service_id', 'sub']).ok).toBe(true);
  });
});
