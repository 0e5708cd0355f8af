import type { JobDefinition } from '@tessera/platform';
import type { BridgeServices } from '../services.js';
import { purgeExpiredAuxiliary } from './commands/purge-expired-auxiliary.js';

/** 000 §2.6, §3.3: expired auxiliary data is removed; as often as the binding cleanup (000 §8: every 60 minutes). */
export const PURGE_EXPIRED_AUXILIARY_JOB = 'reconciliation.auxiliary.purge-expired';
export const PURGE_EXPIRED_AUXILIARY_INTERVAL_SECONDS = 3600;

export function purgeExpiredAuxiliaryJob(services: BridgeServices): JobDefinition {
  return {
    name: PURGE_EXPIRED_AUXILIARY_JOB,
    intervalSeconds: PURGE_EXPIRED_AUXILIARY_INTERVAL_SECONDS,
    async run() {
      const { purged } = await purgeExpiredAuxiliary(services);
      services.platform.logger.info({ job: PURGE_EXPIRED_AUXILIARY_JOB, purged }, 'expired auxiliary data purged');
    },
  };
}

/**
 * The jobs of the external reconciliation API, to register once per process beside `bridgeJobs` (its DPoP replay
 * rows are purged by the platform's job).
 */
export const reconciliationJobs = (services: BridgeServices): JobDefinition[] => [purgeExpiredAuxiliaryJob(services)];
