import { authorizationCodeStore } from './authorization-code-store.js';
import { grantPurgeStore } from './grant-purge-store.js';
import { grantRevocationStore } from './grant-revocation-store.js';
import { loginTransactionStore } from './login-transaction-store.js';
import { refreshTokenStore } from './refresh-token-store.js';
import { unsealedRowsStore } from './unsealed-rows-store.js';

export type { AuthorizationCode, Grant, LoginTransaction, RefreshToken } from './grant-rows.js';
export type { CodeRedeemed, CodeRedemption } from './authorization-code-store.js';
export type { RefreshRedeemed, RefreshRedemption } from './refresh-token-store.js';

/**
 * SQL of the token service's grants (migrations/0001_token_service.sql), one store per responsibility in the files
 * beside this one, gathered here under the one name its callers use. Every function runs inside the caller's tenant
 * unit of work (`db.withTenant`, or `db.withTenantSession` for a unit that is one statement); row-level security
 * confines it to the tenant.
 */
export const grantStore = {
  ...loginTransactionStore,
  ...authorizationCodeStore,
  ...refreshTokenStore,
  ...grantRevocationStore,
  ...unsealedRowsStore,
  ...grantPurgeStore,
};
