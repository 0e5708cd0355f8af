import { isIP } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import type { FailureKind } from '../domain/delivery.js';
import { checkDestinationUrl, DestinationRefused, SYSLOG_TLS_PORT, type UrlPolicy } from './destination-url.js';
import { pinnedLookup } from './pinned-lookup.js';

/**
 * TLS material for syslog destinations (RFC 5425 §5: the collector is authenticated by its certificate; the
 * sender by a client certificate when the collector asks for one). PEM text. Without `ca`, the system's roots.
 */
export interface SyslogTlsOptions {
  ca?: string | string[];
  cert?: string;
  key?: string;
}

export interface SyslogSendOptions extends UrlPolicy {
  timeoutMs: number;
  syslogTls?: SyslogTlsOptions;
  /** An idle connection is closed after this long (default 60 s); the next message opens a new one. */
  idleMs?: number;
}

export type SyslogOutcome =
  { ok: true; status: null } | { ok: false; kind: FailureKind; status: null; message: string };

/**
 * Syslog over TLS (RFC 5425): one long-lived TLS connection per destination, messages framed by octet count,
 * written in order. The destination URL passes the same SSRF rules as a webhook (checked again here, the name
 * resolved by our own lookup and the connection pinned to the checked address), and the collector's certificate
 * is verified against `ca` or the system roots, for the host name of the URL.
 *
 * Syslog has no application acknowledgement (RFC 5425 §4.3): a message counts as delivered once TLS has handed it
 * to the operating system on a connection that was open. A collector that drops the connection can lose what was
 * in flight; docs/decisions.md says when to choose the HTTPS forwarder or an SSF stream instead.
 */
export class SyslogTlsSender {
  private readonly connections = new Map<string, Promise<TLSSocket>>();

  constructor(private readonly options: SyslogSendOptions) {}

  async send(target: string, frame: Buffer): Promise<SyslogOutcome> {
    let socket: TLSSocket;
    try {
      socket = await this.connection(target);
    } catch (error) {
      return failure(error as Error);
    }
    return new Promise<SyslogOutcome>((resolve) => {
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(failure(new SyslogTimeout('the syslog write timed out')));
      }, this.options.timeoutMs);
      socket.write(frame, (error) => {
        clearTimeout(timer);
        resolve(error ? failure(error) : { ok: true, status: null });
      });
    });
  }

  /** Closes every open connection (the delivery loop stopped). */
  close(): void {
    for (const pending of this.connections.values()) void pending.then((s) => s.end()).catch(() => undefined);
    this.connections.clear();
  }

  private connection(target: string): Promise<TLSSocket> {
    const open = this.connections.get(target);
    if (open) return open;
    const opening = this.open(target);
    this.connections.set(target, opening);
    // A collector that closes the connection, or any error, makes the next message open a new one.
    const forget = () => {
      if (this.connections.get(target) === opening) this.connections.delete(target);
    };
    opening.then((socket) => {
      socket.on('error', forget);
      socket.on('close', forget);
    }, forget);
    return opening;
  }

  private open(target: string): Promise<TLSSocket> {
    let checked: ReturnType<typeof checkDestinationUrl>;
    try {
      checked = checkDestinationUrl(target, this.options);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const host = checked.url.hostname.replace(/^\[|\]$/g, '');
    const tls = this.options.syslogTls ?? {};
    return new Promise<TLSSocket>((resolve, reject) => {
      const socket = connect({
        host,
        port: checked.url.port === '' ? SYSLOG_TLS_PORT : Number(checked.url.port),
        // SNI carries host names only (RFC 6066 §3); an IP literal is still checked against the certificate.
        ...(isIP(host) ? {} : { servername: host }),
        lookup: pinnedLookup(checked.allowed) as never,
        rejectUnauthorized: true,
        minVersion: 'TLSv1.2',
        ...(tls.ca === undefined ? {} : { ca: tls.ca }),
        ...(tls.cert === undefined ? {} : { cert: tls.cert }),
        ...(tls.key === undefined ? {} : { key: tls.key }),
      });
      const timer = setTimeout(
        () => socket.destroy(new SyslogTimeout('the syslog connection timed out')),
        this.options.timeoutMs,
      );
      socket.once('secureConnect', () => {
        clearTimeout(timer);
        resolve(socket);
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      socket.on('error', () => undefined); // after the handshake, errors only end the connection (forget above)
      socket.on('data', () => undefined); // RFC 5425 collectors send nothing; anything that comes is dropped.
      socket.setTimeout(this.options.idleMs ?? 60_000, () => socket.end());
    });
  }
}

class SyslogTimeout extends Error {}

const failure = (error: Error): SyslogOutcome => ({
  ok: false,
  kind: error instanceof DestinationRefused ? 'refused' : error instanceof SyslogTimeout ? 'timeout' : 'network',
  status: null,
  message: error.message,
});
