/**
 * Who is calling. A principal comes from a validated bearer JWT (auth/jwt-authenticator.ts) or from a
 * service-to-service credential; public endpoints run with none.
 */
export interface Principal {
  /** Subject of the token (user id or client id). */
  id: string;
  kind: 'user' | 'client' | 'service';
  /** Tenant named by the token, if any; a principal only ever acts in its own tenant (tenancy/resolve-tenant.ts). */
  tenantId: string | null;
  roles: readonly string[];
  scopes: readonly string[];
  /** OAuth client the token was issued to (`azp` or `client_id`). */
  clientId: string | null;
  issuer: string | null;
}

export const hasScope = (principal: Principal | null, scope: string) => principal?.scopes.includes(scope) ?? false;
