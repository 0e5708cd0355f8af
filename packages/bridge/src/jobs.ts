import type { JobDefinition } from '@tessera/platform';
import { expireSessions } from './commands/expire-sessions.js';
import type { BridgeServices } from './services.js';

/** 000 §8 "Session cleanup interval: every 5 minutes"; readiness (§4.5) watches it: critical. */
export const EXPIRE_SESSIONS_JOB = 'bridge.sessions.expire';
export const EXPIRE_SESSIONS_INTERVAL_SECONDS = 300;

export function expireSessionsJob(services: BridgeServices): JobDefinition {
  return {
    name: EXPIRE_SESSIONS_JOB,
    intervalSeconds: EXPIRE_SESSIONS_INTERVAL_SECONDS,
    critical: true,
    async run() {
      const counts = await expireSessions(services);
      services.platform.logger.info({ job: EXPIRE_SESSIONS_JOB, ...counts }, 'bridge session cleanup ran');
    },
  };
}

/** Every background job of the bridge. */
export const bridgeJobs = (services: BridgeServices): JobDefinition[] => [expireSessionsJob(services)];
