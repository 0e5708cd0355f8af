import type { Scenario } from '../../../bench/lib/types.js';
import { partyPersonSearch, partyPersonSearchDriver } from './person-search.js';

/**
 * The party API's benchmark scenarios, for bench/scenarios/index.ts:
 *   import { partyScenarios } from '../../packages/parties/bench/index.js';
 *   export const scenarios = [..., ...partyScenarios];
 */
export const partyScenarios: readonly Scenario[] = [partyPersonSearchDriver, partyPersonSearch];
