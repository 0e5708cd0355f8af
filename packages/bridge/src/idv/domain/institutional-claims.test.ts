import { describe, expect, it } from 'vitest';
import { institutionalClaims, mismatchedClaims } from './institutional-claims.js';

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

  it('keeps the service claim, eppn, email and the names (sub goes to the federation binding)', () => {
    expect(institutionalClaims({ subject: 'inst-1', claims }, 'service_id', [])).toEqual({
      ok: true,
      identityClaims: {
        service_id: 'S-1',
        eduperson_principal_name: 'p@uni.example',
        email: 'p@uni.example',
        given_name: 'P',
      },
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

describe('the wallet credential and the institutional login name one person (issue 14 §1)', () => {
  const names = ['service_id', 'eduperson_principal_name'];
  const institution = { service_id: 'S-1001', eduperson_principal_name: 'alice@uni.example', family_name: 'Archer' };

  it('agrees when every presented identifying claim is the institution’s', () => {
    const wallet = { service_id: 'S-1001', eduperson_principal_name: 'alice@uni.example', family_name: 'Doe' };
    expect(mismatchedClaims(wallet, institution, names, 'strict')).toEqual([]);
  });

  it('names the claims that disagree, never their values', () => {
    const wallet = { service_id: 'demo-user-1', eduperson_principal_name: 'alice@demo.example' };
    expect(mismatchedClaims(wallet, institution, names, 'strict')).toEqual(names);
    expect(mismatchedClaims(wallet, institution, names, 'present')).toEqual(names);
    expect(mismatchedClaims(wallet, institution, names, 'off')).toEqual([]);
  });

  it('strict refuses a presented claim the institution did not release; present does not', () => {
    const wallet = { service_id: 'S-1001', eduperson_principal_name: 'alice@uni.example' };
    const withoutEppn = { service_id: 'S-1001' };
    expect(mismatchedClaims(wallet, withoutEppn, names, 'strict')).toEqual(['eduperson_principal_name']);
    expect(mismatchedClaims(wallet, withoutEppn, names, 'present')).toEqual([]);
    // A claim the wallet did not present is not compared.
    expect(mismatchedClaims({ service_id: 'S-1001' }, institution, names, 'strict')).toEqual([]);
  });

  it('keeps the institution’s names and the configured identifying claims on the identity', () => {
    const login = {
      subject: 'inst-1',
      claims: { ...institution, given_name: 'Alice', email_verified: true, staff_no: '7' },
    };
    const kept = institutionalClaims(login, 'service_id', [], ['staff_no']);
    expect(kept).toEqual({
      ok: true,
      identityClaims: { ...institution, given_name: 'Alice', email_verified: true, staff_no: '7' },
    });
  });
});
