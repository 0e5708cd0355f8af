import type { Scenario } from '../../../bench/lib/types.js';
import {
  statusListAllocate,
  statusListHealthDuringPublish,
  statusListRead,
  statusListUpdate,
} from './http-scenarios.js';
import { statusListDeflate10m, statusListPublish10m } from './publish-10m.js';

/**
 * The status-list scenarios, for bench/scenarios/index.ts:
 *   import { statusListScenarios } from '../../packages/status-lists/bench/index.js';
 *   export const scenarios = [bareRoute, ..., ...statusListScenarios];
 */
export const statusListScenarios: readonly Scenario[] = [
  statusListDeflate10m,
  statusListPublish10m,
  statusListUpdate,
  statusListRead,
  statusListAllocate,
  statusListHealthDuringPublish,
];
