/** Scopes (000 §4.4 scopes_supported: openid, profile, email, the service, offline_access). */
export const parseScope = (scope: string | undefined): string[] => [
  ...new Set((scope ?? '').split(' ').filter(Boolean)),
];
export const formatScope = (scopes: readonly string[]): string => scopes.join(' ');

/** The claims each scope releases at userinfo and in the ID token (OIDC Core §5.4, plus the service scope). */
export function claimsForScopes(scopes: readonly string[], serviceClaim: string): string[] {
  const claims: string[] = [];
  if (scopes.includes('profile'))
    claims.push('name', 'given_name', 'family_name', 'preferred_username', 'eduperson_principal_name');
  if (scopes.includes('email')) claims.push('email', 'email_verified');
  if (scopes.includes(serviceClaim)) claims.push(serviceClaim);
  return claims;
}

export function pickClaims(claims: Record<string, unknown>, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const n of names) if (claims[n] !== undefined && claims[n] !== null) out[n] = claims[n];
  return out;
}
