import { constantTimeEqual } from '@tessera/platform';
import type { DemoUser } from './types.js';

// Addresses under the reserved `.example` top-level domain (RFC 2606), so nothing ever reaches a real mailbox.
const DOMAIN = 'uni.example';

function demoUser(
  serviceClaim: string,
  username: string,
  given: string,
  family: string,
  serviceId: string,
  emailVerified = true,
): DemoUser {
  return {
    username,
    password: `${username}-password`,
    sub: `dev-idp-${username}`,
    claims: {
      [serviceClaim]: serviceId,
      eduperson_principal_name: `${username}@${DOMAIN}`,
      email: `${given.toLowerCase()}.${family.toLowerCase()}@${DOMAIN}`,
      email_verified: emailVerified,
      given_name: given,
      family_name: family,
      name: `${given} ${family}`,
    },
  };
}

/** Three demo people; the third has an unverified email address, for tests of that case. */
export function defaultDemoUsers(serviceClaim = 'service_id'): DemoUser[] {
  return [
    demoUser(serviceClaim, 'alice', 'Alice', 'Archer', 'S-1001'),
    demoUser(serviceClaim, 'bob', 'Bob', 'Baker', 'S-1002'),
    demoUser(serviceClaim, 'carol', 'Carol', 'Cooper', 'S-1003', false),
  ];
}

export class UserDirectory {
  private readonly bySub = new Map<string, DemoUser>();
  private readonly byUsername = new Map<string, DemoUser>();

  constructor(readonly users: readonly DemoUser[]) {
    for (const user of users) {
      if (this.bySub.has(user.sub) || this.byUsername.has(user.username)) {
        throw new Error(`Duplicate demo user ${user.username} / ${user.sub}`);
      }
      this.bySub.set(user.sub, user);
      this.byUsername.set(user.username, user);
    }
  }

  findBySub(sub: string): DemoUser | undefined {
    return this.bySub.get(sub);
  }

  /** Compares in constant time, so the demo does not show a timing side channel by example. */
  authenticate(username: string, password: string): DemoUser | undefined {
    const user = this.byUsername.get(username.trim());
    if (!user) return undefined;
    return constantTimeEqual(user.password, password) ? user : undefined;
  }
}
