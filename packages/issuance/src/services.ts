import { CommandBus, type Clock, type Platform } from '@tessera/platform';
import type { IssuanceConfig } from './config.js';
import { BagSealer } from './crypto/bag-sealer.js';
import { narrowPolicy } from './http/narrow-policy.js';
import { GET_SESSION_ATTRIBUTES } from './commands/ids.js';
import { PipelineMetrics } from './metrics.js';
import { SessionHints } from './storage/session-hints.js';

/** What the pipeline's commands share. */
export interface IssuanceServices {
  platform: Platform;
  config: IssuanceConfig;
  clock: Clock;
  sealer: BagSealer;
  /**
   * The platform's command bus with one narrower rule: the attribute readback is for the configured support or
   * audit roles only (001 §5), which the platform's role policy cannot say without a change to its configuration.
   */
  bus: CommandBus;
  /** Pipeline metrics on the platform's registry (001 §4.5). */
  metrics: PipelineMetrics;
  /** The last session rows seen, as guesses for contributions (storage/session-hints.ts); never trusted as such. */
  sessionHints: SessionHints;
}

export function createIssuanceServices(platform: Platform, config: IssuanceConfig): IssuanceServices {
  const bus = new CommandBus({
    policy: narrowPolicy(platform.policy, { [GET_SESSION_ATTRIBUTES]: config.attributeReaderRoles }),
    audit: platform.audit,
    db: platform.db,
    metrics: platform.metrics,
    redactCommands: platform.config.audit.redactCommands,
  });
  return {
    platform,
    config,
    clock: platform.clock,
    sealer: new BagSealer(platform.keys),
    bus,
    metrics: new PipelineMetrics(platform),
    sessionHints: new SessionHints(),
  };
}
