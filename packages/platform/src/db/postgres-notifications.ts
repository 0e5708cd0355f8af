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
    client.on('notification', (message) => this.subscribers.deliver(message.channel, message.payload ?? ''));
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.connect().then(
      async () => {
        this.connecting = false;
        if (this.closed) return void client.end().catch(() => undefined);
        this.client = client;
        this.retryMs = 100;
        this.heartbeat = setInterval(() => this.check(client), this.heartbeatMs);
        this.heartbeat.unref();
        for (const channel of this.subscribers.channels.keys()) await this.listenOn(client, channel);
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

  /** A query on the listening connection: a connection that no longer answers delivers nothing either. */
  private check(client: pg.Client): void {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('listener heartbeat timed out')), this.heartbeatMs);
    });
    Promise.race([client.query('SELECT 1'), timeout])
      .catch(() => this.lost(client))
      .finally(() => clearTimeout(timer));
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
