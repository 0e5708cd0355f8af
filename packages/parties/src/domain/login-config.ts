/**
 * A service's login configuration (001 §2.5): the authentication methods it accepts, the identifier types valid as
 * logins, the identity providers that may back a login, and whether people may register themselves. A service
 * without a stored configuration accepts nothing and allows no self-registration.
 */
export interface LoginConfig {
  authenticationMethods: string[];
  identifierTypes: string[];
  identityProviders: string[];
  selfRegistrationAllowed: boolean;
}

export const EMPTY_LOGIN_CONFIG: LoginConfig = {
  authenticationMethods: [],
  identifierTypes: [],
  identityProviders: [],
  selfRegistrationAllowed: false,
};

/** PUT (the rule of 001 §4.4 for every update): a null or omitted field keeps the stored value. */
export function mergeLoginConfig(
  stored: LoginConfig | null,
  patch: Partial<Record<keyof LoginConfig, unknown>>,
): LoginConfig {
  const base = stored ?? EMPTY_LOGIN_CONFIG;
  const pick = <K extends keyof LoginConfig>(key: K): LoginConfig[K] =>
    patch[key] === undefined || patch[key] === null
      ? base[key]
      : ((Array.isArray(patch[key]) ? [...new Set(patch[key] as string[])] : patch[key]) as LoginConfig[K]);
  return {
    authenticationMethods: pick('authenticationMethods'),
    identifierTypes: pick('identifierTypes'),
    identityProviders: pick('identityProviders'),
    selfRegistrationAllowed: pick('selfRegistrationAllowed'),
  };
}
