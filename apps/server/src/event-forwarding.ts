import { readFileSync } from 'node:fs';
import {
  eventForwardingService,
  outboundService,
  type EventForwardingService,
  type OutboundService,
  type Platform,
} from '@tessera/platform';
import type { ServerConfig } from './config.js';

/**
 * The process's outbound service (webhooks, connectors' neighbours, SIEM forwarders): plain http only in
 * development, and the syslog TLS material read once from its files. A file that cannot be read fails the start.
 */
export function outboundOf(platform: Platform, config: ServerConfig): OutboundService {
  const tls = config.eventForwarding.syslogTls;
  const read = (file: string | undefined) => (file === undefined ? undefined : readFileSync(file, 'utf8'));
  const ca = read(tls?.caFile);
  const cert = read(tls?.certFile);
  const key = read(tls?.keyFile);
  return outboundService(platform, {
    allowHttp: config.profile === 'development',
    ...(tls
      ? {
          syslogTls: {
            ...(ca === undefined ? {} : { ca }),
            ...(cert === undefined ? {} : { cert }),
            ...(key === undefined ? {} : { key }),
          },
        }
      : {}),
  });
}

/**
 * The process's audit forwarding (001 §6 SIEM replication): the SSF transmitter served on the token service's
 * internal port, the generic forwarders on the management listener, and the loop every process runs. Over the
 * process's outbound service, with the options start.ts gives it.
 */
export function forwardingOf(platform: Platform, config: ServerConfig): EventForwardingService {
  return eventForwardingService(platform, outboundOf(platform, config), {
    transmitterUrl: config.eventForwarding.transmitterUrl,
    pollIntervalMs: config.eventForwarding.pollIntervalMs,
    batchSize: config.eventForwarding.batchSize,
  });
}
