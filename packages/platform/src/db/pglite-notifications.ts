import type { PGlite } from '@electric-sql/pglite';
import {
  ChangeSubscribers,
  type ChangeHandlers,
  type ChangeNotifications,
  type ChangeSubscription,
} from './change-notifications.js';

/**
 * The embedded engine's listener (change-notifications.ts): one process owns the data directory, so every writer
 * is in this process, and PGlite delivers `pg_notify` to its LISTENers after the commit, as PostgreSQL does. There
 * is no connection to lose: a channel listens from the moment its LISTEN is in effect until close.
 */
export class PgliteChangeNotifications implements ChangeNotifications {
  private readonly subscribers = new ChangeSubscribers();
  private readonly unlisten = new Map<string, Promise<() => Promise<void>>>();

  constructor(private readonly pglite: PGlite) {}

  subscribe(channel: string, handlers: ChangeHandlers): ChangeSubscription {
    const subscription = this.subscribers.add(channel, handlers);
    if (!this.unlisten.has(channel)) {
      const listening = this.pglite.listen(channel, (payload) => this.subscribers.deliver(channel, payload));
      this.unlisten.set(channel, listening);
      listening.then(
        () => this.subscribers.mark(channel, true),
        // A channel whose LISTEN failed stays unlistened: its subscribers validate what they keep.
        () => undefined,
      );
    }
    return subscription;
  }

  announce(channel: string, payload: string): void {
    this.subscribers.deliver(channel, payload);
  }

  isListening(channel: string): boolean {
    return this.subscribers.listened.has(channel);
  }

  async close(): Promise<void> {
    this.subscribers.markAllLost();
    const pending = [...this.unlisten.values()];
    this.unlisten.clear();
    for (const listening of pending) await (await listening.catch(() => null))?.().catch(() => undefined);
  }
}
