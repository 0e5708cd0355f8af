import type { JobDefinition } from '@tessera/platform';
import type { BridgeServices } from '../services.js';
import { purgeExpiredAuxiliary } from './commands/purge-expired-auxiliary.js';
import { createDpopReplayStore } from './storage/dpop-replay.js';

/** 000 §2.6, §3.3: expired auxiliary data is removed; as often as the binding cleanup (000 §8: every 60 minutes). */
export const PURGE_EXPIRED_AUXILIARY_JOB = 'reconciliation.auxiliary.purge-expired';
export const PURGE_EXPIRED_AUXILIARY_INTERVAL_SECONDS = 3600;

/** The DPoP replay table only needs its expired rows gone (the store ignores them already). */
export const PURGE_DPOP_REPLAY_JOB = 'reconciliation.dpop-replay.purge-expired';
export const PURGE_DPOP_REPLAY_INTERVAL_SECONDS = 3600;

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

export function purgeDpopReplayJob(services: BridgeServices): JobDefinition {
  const store = createDpopReplayStore(services.platform, services.clock);
  return {
    name: PURGE_DPOP_REPLAY_JOB,
    intervalSeconds: PURGE_DPOP_REPLAY_INTERVAL_SECONDS,
    async run() {
      // Redis drops its keys by itself; only the SQL table has a purge.
      const purged = (await store.purgeExpired?.()) ?? 0;
      services.platform.logger.info({ job: PURGE_DPOP_REPLAY_JOB, purged }, 'expired DPoP proof records purged');
    },
  };
}

/** The jobs of the external reconciliation API, to register once per process beside `bridgeJobs`. */
export const reconciliationJobs = (services: BridgeServices): JobDefinition[] => [
  purgeExpiredAuxiliaryJob(services),
  purgeDpopReplayJob(services),
];
