import type { Scenario } from '../../../bench/lib/types.js';
import {
  designResolve,
  designResolve304,
  designResolve304Floor,
  designResolveFloor,
  designResolveUncached,
} from './design-resolve.js';

/**
 * The design registry's benchmark scenarios, for bench/scenarios/index.ts:
 *   import { designScenarios } from '../../packages/designs/bench/index.js';
 *   export const scenarios = [bareRoute, ..., ...designScenarios];
 */
export const designScenarios: readonly Scenario[] = [
  designResolve,
  designResolve304,
  designResolveUncached,
  designResolveFloor,
  designResolve304Floor,
];
