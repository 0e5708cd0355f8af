export { startDevIdentityProvider } from './server.js';
export { defaultDemoUsers } from './users.js';
export { DEV_IDP_ACR, ROUTES as DEV_IDP_ROUTES } from './configuration.js';
export { DEFAULT_SLOW_SECONDS } from './behaviours.js';
export type {
  Behaviour,
  BehaviourOptions,
  DemoUser,
  DemoUserClaims,
  DevClient,
  DevIdentityProvider,
  DevIdentityProviderOptions,
} from './types.js';
