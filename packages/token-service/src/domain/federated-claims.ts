/** The claims kept from an institutional provider's ID token and UserInfo (000 §2.4: the service, eppn, email, sub). */
const KEPT = [
  'eduperson_principal_name',
  'email',
  'email_verified',
  'given_name',
  'family_name',
  'name',
  'preferred_username',
];

export function federatedClaims(claims: Record<string, unknown>, serviceClaim: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of [serviceClaim, ...KEPT])
    if (claims[name] !== undefined && claims[name] !== null) out[name] = claims[name];
  return out;
}
