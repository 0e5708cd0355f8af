import type { Sql } from '@tessera/platform';
import { credentialAuthorizationStore } from './credential-authorization-store.js';
import { credentialGrantStore } from './credential-grant-store.js';

/** A used or expired offer grant is kept a day, so that a late replay is still recognised (and audited) as one. */
const KEEP_SECONDS = 86_400;

/** Part of the token service's purge job: expired OpenID4VCI grants and authorizations of one tenant. */
export async function purgeCredentialGrants(sql: Sql, now: Date): Promise<number> {
  return (
    (await credentialGrantStore.purgeExpired(sql, new Date(now.getTime() - KEEP_SECONDS * 1000))) +
    (await credentialAuthorizationStore.purgeExpired(sql, now))
  );
}
