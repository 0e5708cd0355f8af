/**
 * Change notifications across replicas (issue 17, resolve cache): a process keeps something derived from stored
 * rows (a cache) and must drop it when any replica commits a change to those rows. The writing transaction
 * publishes on a channel (`pg_notify`, typically from a trigger, so that no write path can forget it); PostgreSQL
 * delivers the notification to every listening session when, and only when, the transaction commits. Each process
 * listens on one connection of its own.
 *
 * What a subscriber may rely on:
 * - `changed(payload)` follows every committed publication on its channel while `listening` is true;
 * - `listening` is false before the listener is established and from the moment its connection is known lost: the
 *   subscriber must then not answer from what it keeps without validating it (it may have missed changes);
 * - `reset()` is called when listening (re)starts and when it is lost: whatever was kept before may be stale.
 * A connection lost silently (no error, no FIN) is found by a heartbeat on the listening connection, so the window
 * in which a missed change goes unnoticed is bounded by the heartbeat's interval and timeout (PostgresChangeNotifications).
 *
 * `announce` delivers a payload to this instance's own subscribers at once: the writer calls it after its commit,
 * so that a read after a write on the same replica never waits for the notification's round trip.
 */
export interface ChangeHandlers {
  /** A change committed on the channel (the publication's payload), by this replica or another one. */
  changed(payload: string): void;
  /** Changes may have been missed (listening started, restarted or was lost): drop everything kept. */
  reset(): void;
}

export interface ChangeSubscription {
  /** True while every change committed from now on reaches `changed`; false: validate what is kept before use. */
  readonly listening: boolean;
  close(): Promise<void>;
}

export interface ChangeNotifications {
  subscribe(channel: string, handlers: ChangeHandlers): ChangeSubscription;
  /** Delivers `payload` to the subscribers of `channel` in this process now (after the writer's commit). */
  announce(channel: string, payload: string): void;
  /** Whether `channel` is listened on now (operations, tests). */
  isListening(channel: string): boolean;
  close(): Promise<void>;
}

/** Channels are SQL identifiers in LISTEN: lower-case words only, so they need no quoting. */
const CHANNEL_PATTERN = /^[a-z][a-z0-9_]{0,62}$/;

export function assertChannel(channel: string): void {
  if (!CHANNEL_PATTERN.test(channel)) throw new Error(`invalid notification channel: ${JSON.stringify(channel)}`);
}

/**
 * The subscribers of each channel and their delivery, shared by both engines' listeners. `listened` holds the
 * channels whose LISTEN is in effect on a live connection.
 */
export class ChangeSubscribers {
  readonly channels = new Map<string, Set<ChangeHandlers>>();
  readonly listened = new Set<string>();

  add(channel: string, handlers: ChangeHandlers): ChangeSubscription {
    assertChannel(channel);
    let set = this.channels.get(channel);
    if (!set) this.channels.set(channel, (set = new Set()));
    set.add(handlers);
    const listened = this.listened;
    let closed = false;
    return {
      get listening() {
        return !closed && listened.has(channel);
      },
      // The channel stays listened on (another subscriber may come); the listener ends with the database.
      close: async () => {
        closed = true;
        set.delete(handlers);
      },
    };
  }

  deliver(channel: string, payload: string): void {
    for (const handlers of this.channels.get(channel) ?? []) handlers.changed(payload);
  }

  /** The channel's LISTEN took effect (true) or its connection was lost (false): its subscribers reset. */
  mark(channel: string, listening: boolean): void {
    if (listening) this.listened.add(channel);
    else this.listened.delete(channel);
    for (const handlers of this.channels.get(channel) ?? []) handlers.reset();
  }

  markAllLost(): void {
    for (const channel of [...this.listened]) this.mark(channel, false);
  }
}
