import { describe, expect, it } from 'vitest';
import {
  agreementOf,
  candidateDisplay,
  displayClaimsOf,
  maskValue,
  newMatchId,
  publicCandidates,
  type FoundIdentity,
} from './match-candidates.js';
import { resolvePlan, REASONS, type AutoMatchAttribute, type MatchConfirmationRule } from './plan.js';

/** Match confirmation (issue 14 §11): the agreement rule, the masking rule and the plan they lead to. */
const IDENTIFYING = ['service_id', 'eduperson_principal_name'];
const RULE: MatchConfirmationRule = { enabled: true, maxCandidates: 3, identifyingClaims: IDENTIFYING };

const identity = (id: string, claims: Record<string, unknown>, walletBound = false): FoundIdentity => ({
  internalIdentityId: id,
  claims,
  bindings: { walletBound, federationBound: true },
});

/** An in-memory identity store: identities found by the claim of each identifier type. */
function lookupOf(identities: FoundIdentity[], bound: Record<string, string> = {}) {
  const claimOf: Record<AutoMatchAttribute, string> = { SERVICE_ID: 'service_id', EPPN: 'eduperson_principal_name' };
  return {
    byHolderKey: async (key: string) => (bound[key] ? { internalIdentityId: bound[key] } : null),
    byIdentifier: async (type: AutoMatchAttribute, value: string) =>
      identities.filter((i) => i.claims[claimOf[type]] === value),
  };
}

async function planFor(
  identities: FoundIdentity[],
  presented: Record<string, unknown>,
  rule: MatchConfirmationRule = RULE,
  autoMatch: AutoMatchAttribute[] = ['SERVICE_ID', 'EPPN'],
) {
  return resolvePlan({
    holderKey: 'urn:key:new',
    forceReconciliation: false,
    autoMatch,
    attributes: { SERVICE_ID: presented.service_id, EPPN: presented.eduperson_principal_name },
    presented,
    confirmation: rule,
    lookup: lookupOf(identities),
  });
}

const WALLET = { service_id: 'S-4711', eduperson_principal_name: 'ada@uni.example', email: 'ada@uni.example' };

describe('agreementOf', () => {
  it('agrees when every presented identifying claim is held with the same value', () => {
    expect(agreementOf({ ...WALLET, family_name: 'L' }, WALLET, IDENTIFYING)).toBe('agrees');
  });
  it('is uncertain when the identity lacks one of them, and conflicts when it holds another value', () => {
    expect(agreementOf({ service_id: 'S-4711' }, WALLET, IDENTIFYING)).toBe('uncertain');
    expect(agreementOf({ service_id: 'S-4711', eduperson_principal_name: 'x@uni.example' }, WALLET, IDENTIFYING)).toBe(
      'conflicts',
    );
  });
  it('ignores identifying claims the wallet did not present', () => {
    expect(
      agreementOf({ service_id: 'S-4711', eduperson_principal_name: 'x' }, { service_id: 'S-4711' }, IDENTIFYING),
    ).toBe('agrees');
  });
});

describe('maskValue', () => {
  it.each([
    ['alice@uni.example', 'a***@uni.example'],
    ['ada.lovelace@uni.example', 'a***@uni.example'],
    ['S-4711', '***'],
    ['S-1234567', '***67'],
    ['a@b@c', '***'],
    ['@uni.example', '***le'],
    ['émile@uni.example', 'é***@uni.example'],
  ])('%s → %s', (value, masked) => {
    expect(maskValue(value)).toBe(masked);
  });
});

describe('candidateDisplay', () => {
  it('shows masked values of claims the credential disclosed only, and the institution of a federated identity', () => {
    const found = identity('id-1', {
      service_id: 'S-1234567',
      eduperson_principal_name: 'ada@uni.example',
      email: 'ada.private@mail.example',
      family_name: 'Lovelace',
    });
    const shown = displayClaimsOf(IDENTIFYING);
    const withoutEmail = { service_id: 'S-1234567', eduperson_principal_name: 'ada@uni.example' };
    expect(candidateDisplay(found, ['SERVICE_ID'], withoutEmail, shown, 'University of Examples')).toEqual({
      matchedOn: ['SERVICE_ID'],
      claims: { service_id: '***67', eduperson_principal_name: 'a***@uni.example' },
      institution: 'University of Examples',
    });
    const display = candidateDisplay(found, ['EPPN'], WALLET, shown, null);
    expect(display.claims).toEqual({
      service_id: '***67',
      eduperson_principal_name: 'a***@uni.example',
      email: 'a***@mail.example',
    });
    expect(JSON.stringify(display)).not.toContain('Lovelace');
    expect(JSON.stringify(display)).not.toContain('ada@');
    const local = { ...found, bindings: { walletBound: false, federationBound: false } };
    expect(candidateDisplay(local, ['EPPN'], WALLET, shown, 'University of Examples').institution).toBeNull();
  });

  it('answers the opaque match id and the display, never the identity id', () => {
    const matchId = newMatchId();
    expect(matchId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(newMatchId()).not.toBe(matchId);
    const view = publicCandidates([
      { matchId, identityId: 'id-secret', display: { matchedOn: ['EPPN'], claims: {}, institution: null } },
    ]);
    expect(view).toEqual([{ matchId, matchedOn: ['EPPN'], claims: {}, institution: null }]);
    expect(JSON.stringify(view)).not.toContain('id-secret');
  });
});

describe('resolvePlan with match confirmation', () => {
  it('auto-matches one identity that agrees with every presented identifying claim', async () => {
    const plan = await planFor([identity('a', WALLET)], WALLET);
    expect(plan).toMatchObject({ type: 'AUTO_MATCH_BY_ATTRIBUTE', identityId: 'a', idvRequired: false });
  });

  it('asks to confirm one uncertain match (the identity lacks the eppn the wallet presented)', async () => {
    const plan = await planFor([identity('a', { service_id: 'S-4711' })], WALLET);
    expect(plan.type).toBe('CONFIRM_ATTRIBUTE_MATCH');
    expect(plan.idvRequired).toBe(false);
    expect(plan.candidates?.map((c) => [c.identity.internalIdentityId, c.matchedOn])).toEqual([['a', ['SERVICE_ID']]]);
  });

  it('asks to confirm several matches, each with the identifier types that found it', async () => {
    const plan = await planFor(
      [
        identity('a', { service_id: 'S-4711' }),
        identity('b', { eduperson_principal_name: 'ada@uni.example' }),
        identity('c', { service_id: 'S-4711', eduperson_principal_name: 'ada@uni.example' }),
      ],
      WALLET,
    );
    expect(plan.type).toBe('CONFIRM_ATTRIBUTE_MATCH');
    expect(plan.candidates?.map((c) => [c.identity.internalIdentityId, c.matchedOn])).toEqual([
      ['a', ['SERVICE_ID']],
      ['c', ['SERVICE_ID', 'EPPN']],
      ['b', ['EPPN']],
    ]);
  });

  it('never offers an identity that disagrees, or one that already has a wallet', async () => {
    const plan = await planFor(
      [
        identity('a', { service_id: 'S-4711', eduperson_principal_name: 'other@uni.example' }),
        identity('b', { service_id: 'S-4711' }, true),
        identity('c', { service_id: 'S-4711' }),
      ],
      WALLET,
    );
    expect(plan.candidates?.map((c) => c.identity.internalIdentityId)).toEqual(['c']);
    const conflicting = await planFor(
      [identity('a', { service_id: 'S-4711', eduperson_principal_name: 'x@y' })],
      WALLET,
    );
    expect(conflicting).toMatchObject({ type: 'RECONCILE_VIA_IDV', idvRequired: true, reason: REASONS.conflicting });
    const allBound = await planFor(
      [identity('a', { service_id: 'S-4711' }, true), identity('b', { service_id: 'S-4711' }, true)],
      WALLET,
    );
    expect(allBound).toMatchObject({ type: 'RECONCILE_VIA_IDV', reason: REASONS.ambiguous });
  });

  it('sends more candidates than maxCandidates, and no match at all, to IDV', async () => {
    const many = ['a', 'b', 'c', 'd'].map((id) => identity(id, { service_id: 'S-4711' }));
    expect(await planFor(many, WALLET)).toMatchObject({ type: 'RECONCILE_VIA_IDV', reason: REASONS.tooMany });
    expect(await planFor([], WALLET)).toMatchObject({ type: 'RECONCILE_VIA_IDV', reason: REASONS.unknown });
  });

  it('keeps the rule without confirmation: several → IDV, one → auto-match', async () => {
    const off = { ...RULE, enabled: false };
    const two = [identity('a', { service_id: 'S-4711' }), identity('b', { service_id: 'S-4711' })];
    expect(await planFor(two, WALLET, off)).toMatchObject({ type: 'RECONCILE_VIA_IDV', reason: REASONS.ambiguous });
    expect(await planFor([identity('a', { service_id: 'S-4711' })], WALLET, off)).toMatchObject({
      type: 'AUTO_MATCH_BY_ATTRIBUTE',
      identityId: 'a',
    });
  });

  it('an existing binding and forceReconciliation come first', async () => {
    const bound = await resolvePlan({
      holderKey: 'urn:key:known',
      forceReconciliation: false,
      autoMatch: ['SERVICE_ID'],
      attributes: { SERVICE_ID: 'S-4711' },
      presented: WALLET,
      confirmation: RULE,
      lookup: lookupOf([identity('a', { service_id: 'S-4711' }), identity('b', { service_id: 'S-4711' })], {
        'urn:key:known': 'z',
      }),
    });
    expect(bound).toMatchObject({ type: 'USE_EXISTING_BINDING', identityId: 'z' });
    const forced = await resolvePlan({
      holderKey: 'urn:key:known',
      forceReconciliation: true,
      autoMatch: ['SERVICE_ID'],
      attributes: { SERVICE_ID: 'S-4711' },
      presented: WALLET,
      confirmation: RULE,
      lookup: lookupOf([identity('a', { service_id: 'S-4711' })]),
    });
    expect(forced).toMatchObject({ type: 'RECONCILE_VIA_IDV', reason: REASONS.forced });
  });
});
