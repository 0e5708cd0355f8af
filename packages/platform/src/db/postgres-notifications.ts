import { randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  ChangeSubscribers,
  type ChangeHandlers,
  type ChangeNotifications,
  type ChangeSubscription,
} from './change-notifications.js';

export interface PostgresNotificationOptions {
  url: string;
  connectTimeoutSeconds: number;
  /** How often the listening connection is checked (a query on it); it is lost when that fails or times out. */
  heartbeatMs?: number;
  /** Longest wait between two attempts to connect again (the first waits 100 ms, then twice as long each time). */
  maxRetryMs?: number;
}

/** Shown in pg_stat_activity, so that an operator (or a test) can find the listening sessions. */
export const LISTENER_APPLICATION_NAME = 'tessera-change-listener';

/**
 * The PostgreSQL listener of one process (change-notifications.ts): one connection outside the pool, opened on the
 * first subscription, LISTENing on every subscribed channel. A notification arrives within milliseconds of the
 * commit. When the connection fails (an error, its end, or a heartbeat unanswered within `heartbeatMs`), every
 * channel stops listening and its subscribers reset; the connection is made again with a growing delay, and each
 * channel listens (and its subscribers reset) once its LISTEN is in effect again. A change committed while nothing
 * listened is never delivered: subscribers validate what they keep until then.
 *
 * The heartbeat proves delivery end to end rather than only that the connection answers: the listener notifies a
 * channel of its own and must receive that notification back. A path that answers queries but delivers no
 * notification (a transaction-pooling PgBouncer in front, which runs LISTEN on one server connection and later
 * statements on others; a proxy that filters messages) is thus never trusted, and no channel counts as listening
 * until the first such round trip has come back on the new connection.
 */
export class PostgresChangeNotifications implements ChangeNotifications {
  private readonly subscribers = new ChangeSubscribers();
  private client: pg.Client | null = null;
  private connecting = false;
  private closed = false;
  private retryMs = 100;
  private retryTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly heartbeatMs: number;
  private readonly maxRetryMs: number;
  /** The listener's own channel for its heartbeat (unique per process and connection attempt). */
  private heartbeatChannel = '';
  private heartbeatSequence = 0;
  /** The heartbeat awaiting its notification: its payload and how to settle it. */
  private awaitedBeat: { payload: string; arrived: () => void } | null = null;

  constructor(private readonly options: PostgresNotificationOptions) {
    this.heartbeatMs = options.heartbeatMs ?? 1000;
    this.maxRetryMs = options.maxRetryMs ?? 5000;
  }

  subscribe(channel: string, handlers: ChangeHandlers): ChangeSubscription {
    const known = this.subscribers.channels.has(channel);
    const subscription = this.subscribers.add(channel, handlers);
    if (this.client && !known) void this.listenOn(this.client, channel);
    else if (!this.client) this.connect();
    return subscription;
  }

  announce(channel: string, payload: string): void {
    this.subscribers.deliver(channel, payload);
  }

  /** Whether `channel` is listened on now (operations, tests). */
  isListening(channel: string): boolean {
    return this.subscribers.listened.has(channel);
  }

  private connect(): void {
    if (this.closed || this.connecting || this.client) return;
    this.connecting = true;
    const client = new pg.Client({
      connectionString: this.options.url,
      connectionTimeoutMillis: this.options.connectTimeoutSeconds * 1000,
      application_name: LISTENER_APPLICATION_NAME,
      keepAlive: true,
    });
    const heartbeatChannel = `tessera_listener_${randomBytes(8).toString('hex')}`;
    client.on('notification', (message) => {
      if (message.channel !== heartbeatChannel) this.subscribers.deliver(message.channel, message.payload ?? '');
      else {
        const awaited = this.awaitedBeat;
        if (awaited && awaited.payload === message.payload) awaited.arrived();
      }
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.connect().then(
      async () => {
        const listened = new Set<string>();
        try {
          // Every channel's LISTEN first, then one heartbeat: only a connection that has delivered a notification
          // back is trusted, and the channels count as listening from then on.
          await client.query(`LISTEN ${heartbeatChannel}`);
          for (const channel of this.subscribers.channels.keys()) {
            await client.query(`LISTEN ${channel}`);
            listened.add(channel);
          }
          this.heartbeatChannel = heartbeatChannel;
          await this.beat(client);
        } catch {
          this.connecting = false;
          client.end().catch(() => undefined);
          this.retryLater();
          return;
        }
        this.connecting = false;
        if (this.closed) return void client.end().catch(() => undefined);
        this.client = client;
        this.retryMs = 100;
        this.heartbeat = setInterval(() => this.check(client), this.heartbeatMs);
        this.heartbeat.unref();
        for (const channel of this.subscribers.channels.keys()) {
          // A channel subscribed while the connection was being proven has no LISTEN yet.
          if (listened.has(channel)) this.subscribers.mark(channel, true);
          else void this.listenOn(client, channel);
        }
      },
      () => {
        this.connecting = false;
        this.retryLater();
      },
    );
  }

  private async listenOn(client: pg.Client, channel: string): Promise<void> {
    try {
      await client.query(`LISTEN ${channel}`);
      if (this.client === client) this.subscribers.mark(channel, true);
    } catch {
      this.lost(client);
    }
  }

  /** A heartbeat on the listening connection; the connection is lost when its notification does not come back. */
  private check(client: pg.Client): void {
    if (this.awaitedBeat) return;
    this.beat(client).catch(() => this.lost(client));
  }

  /**
   * Notifies the listener's own channel and waits, at most `heartbeatMs`, for that notification to arrive on the
   * listening connection: a query answered proves the connection, a notification received proves delivery.
   */
  private beat(client: pg.Client): Promise<void> {
    const payload = String(++this.heartbeatSequence);
    let timer: NodeJS.Timeout | undefined;
    const arrived = new Promise<void>((resolve, reject) => {
      this.awaitedBeat = { payload, arrived: resolve };
      timer = setTimeout(() => reject(new Error('listener heartbeat timed out')), this.heartbeatMs);
    });
    return Promise.all([client.query('SELECT pg_notify($1, $2)', [this.heartbeatChannel, payload]), arrived])
      .then(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        if (this.awaitedBeat?.payload === payload) this.awaitedBeat = null;
      });
  }

  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    clearInterval(this.heartbeat);
    this.subscribers.markAllLost();
    // Not awaited: a connection that stopped answering may never confirm its end.
    client.end().catch(() => undefined);
    this.retryLater();
  }

  private retryLater(): void {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, this.maxRetryMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.heartbeat);
    const client = this.client;
    this.client = null;
    this.subscribers.markAllLost();
    await client?.end().catch(() => undefined);
  }
}
