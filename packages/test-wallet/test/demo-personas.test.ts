import { describe, expect, it } from 'vitest';
import { defaultDemoUsers } from '@tessera/dev-idp';
import { DEMO_PERSONAS } from '../src/development/demo-personas.js';

/** The README walkthrough shows one person: persona n of the wallet is user n of the embedded provider (issue 14 §1). */
describe('development personas', () => {
  it('are the embedded provider’s users: alice is alice', () => {
    const users = defaultDemoUsers('service_id');
    expect(DEMO_PERSONAS).toHaveLength(users.length);
    DEMO_PERSONAS.forEach((persona, i) => {
      const { claims } = users[i]!;
      expect(persona.claims).toEqual({
        service_id: claims.service_id,
        eduperson_principal_name: claims.eduperson_principal_name,
        email: claims.email,
        given_name: claims.given_name,
        family_name: claims.family_name,
      });
    });
    expect(DEMO_PERSONAS[0]!.claims.eduperson_principal_name).toBe('alice@uni.example');
  });
});
