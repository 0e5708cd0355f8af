import { describe, expect, it } from 'vitest';
import type { IdentityRecord } from '@tessera/identity';
import { ManualClock } from '@tessera/platform';
import type { PresentationSession } from '../domain/session.js';
import type { BridgeServices } from '../services.js';
import { completionResult } from './completion.js';

/** README "Claims precedence" (issue 14 §1): the identity's claims win; the wallet's fill only what it lacks. */
describe('completion claims', () => {
  const services = { clock: new ManualClock(new Date('2030-01-01T00:00:00Z')), acr: 'urn:tessera:oid4vp:vp' };
  const session = { verifiedAt: new Date('2030-01-01T00:00:00Z') } as PresentationSession;
  const identity = {
    internalIdentityId: 'id-1',
    claims: { service_id: 'S-1001', eduperson_principal_name: 'alice@uni.example', family_name: 'Archer' },
  } as unknown as IdentityRecord;

  it("keeps the identity's value of every claim it has and takes the wallet's for the others", () => {
    const presented = {
      service_id: 'demo-user-1',
      eduperson_principal_name: 'alice@demo.example',
      family_name: 'Doe',
      given_name: 'Alice',
    };
    const result = completionResult(
      services as unknown as BridgeServices,
      session,
      presented,
      identity,
      'CANONICAL_BINDING',
      false,
    );
    expect(result.claims).toEqual({
      service_id: 'S-1001',
      eduperson_principal_name: 'alice@uni.example',
      family_name: 'Archer',
      given_name: 'Alice',
    });
  });
});
