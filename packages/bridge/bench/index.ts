import type { Scenario } from '../../../bench/lib/types.js';
import { bridgeCreateSession, bridgeCreateSessionPglite } from './create-session.js';
import { es256Verify } from './es256-verify.js';
import { reconciliationLookup, reconciliationLookupFloor } from './reconciliation-lookup.js';
import { bridgeVerifyPresentation } from './verify-presentation.js';

/**
 * The bridge's benchmark scenarios, for bench/scenarios/index.ts:
 *   import { bridgeScenarios } from '../../packages/bridge/bench/index.js';
 *   export const scenarios = [bareRoute, platformPublicRoute, rs256Sign, ...bridgeScenarios];
 */
export const bridgeScenarios: readonly Scenario[] = [
  es256Verify,
  bridgeVerifyPresentation,
  bridgeCreateSession,
  bridgeCreateSessionPglite,
  reconciliationLookup,
  reconciliationLookupFloor,
];
