import type { SyslogTlsOptions } from '../transport/send-syslog.js';

/**
 * Configuration of the outbound service, as constructor options (the defaults below are the documented ones,
 * README "Configuration").
 */
export interface OutboundOptions {
  /** Timeout of one POST, connection to last byte (default 10 s). */
  timeoutMs: number;
  /** Rows claimed per round by one replica, and its deliveries in flight at most (default 20). */
  batchSize: number;
  /**
   * Pause of the delivery loop when there was nothing due (default 1 s); also how often the loop dead-letters held
   * rows past their age and takes the probes of cooled-down circuits.
   */
  pollIntervalMs: number;
  /** First retry delay; attempt n waits a random time in [0, min(cap, base·2^(n-1))] (default 5 s). */
  retryBaseMs: number;
  /** Upper bound of one retry delay (default 1 h). */
  retryCapMs: number;
  /** A delivery not delivered this long after it was enqueued goes to `dead` (default 24 h). */
  maxAgeMs: number;
  /** Consecutive failures that open a destination's circuit (default 5). */
  breakerFailureThreshold: number;
  /** How long an open circuit holds deliveries before one half-open probe (default 60 s). */
  breakerCooldownMs: number;
  /** Origins exempt from the SSRF address rules (test receivers, development fixtures); default none. */
  allowPrivateOrigins: readonly string[];
  /** Plain http to public addresses (development only; default false). */
  allowHttp: boolean;
  /**
   * How long past the POST's timeout a claimed row stays with its replica (default 30 s): a replica that died
   * mid-delivery leaves its rows to the others after timeoutMs + leaseMarginMs.
   */
  leaseMarginMs: number;
  /** Key-encryption key alias that seals destination secrets (default `platform-webhook-secrets`). */
  sealerAlias: string;
  /** TLS trust and client certificate for syslog destinations (RFC 5425); default: the system roots, no client certificate. */
  syslogTls?: SyslogTlsOptions;
}

export const DEFAULT_OUTBOUND_OPTIONS: OutboundOptions = {
  timeoutMs: 10_000,
  batchSize: 20,
  pollIntervalMs: 1_000,
  retryBaseMs: 5_000,
  retryCapMs: 3_600_000,
  maxAgeMs: 86_400_000,
  breakerFailureThreshold: 5,
  breakerCooldownMs: 60_000,
  allowPrivateOrigins: [],
  allowHttp: false,
  leaseMarginMs: 30_000,
  sealerAlias: 'platform-webhook-secrets',
};

/** A claimed row belongs to its replica this long: the POST's timeout and a margin for writing the outcome. */
export const leaseMs = (options: OutboundOptions) => options.timeoutMs + options.leaseMarginMs;
