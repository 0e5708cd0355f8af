import type { Scenario } from '../../../bench/lib/types.js';
import { pipelineContribute } from './pipeline-contribute.js';
import { pipelineContributeFloor } from './pipeline-contribute-floor.js';

/**
 * The issuance pipeline's benchmark scenarios, for bench/scenarios/index.ts:
 *   import { issuanceScenarios } from '../../packages/issuance/bench/index.js';
 *   export const scenarios = [bareRoute, ..., ...issuanceScenarios];
 */
export const issuanceScenarios: readonly Scenario[] = [pipelineContribute, pipelineContributeFloor];
