import type { Scenario } from '../../../bench/lib/types.js';
import { sha256Rsa2048OneMib } from './baseline.js';
import { signPdfOneMib, signPdfOneMibPg } from './sign-pdf.js';

/**
 * The signing API's benchmark scenarios, for bench/scenarios/index.ts:
 *   import { signingScenarios } from '../../packages/signing/bench/index.js';
 *   export const scenarios = [..., ...signingScenarios];
 */
export const signingScenarios: readonly Scenario[] = [sha256Rsa2048OneMib, signPdfOneMib, signPdfOneMibPg];
