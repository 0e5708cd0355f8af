import { eventForwardingService, outboundService, type EventForwardingService, type Platform } from '@tessera/platform';
import type { ServerConfig } from './config.js';

/**
 * The process's audit forwarding (001 §6 SIEM replication): the SSF transmitter served on the token service's
 * internal port, the generic forwarders on the management listener, and the loop every process runs. Over the
 * process's outbound service, with the options start.ts gives it.
 */
export function forwardingOf(platform: Platform, config: ServerConfig): EventForwardingService {
  return eventForwardingService(platform, outboundService(platform, { allowHttp: config.profile === 'development' }), {
    transmitterUrl: config.eventForwarding.transmitterUrl,
    pollIntervalMs: config.eventForwarding.pollIntervalMs,
    batchSize: config.eventForwarding.batchSize,
  });
}
