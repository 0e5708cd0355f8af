export interface DeliveryLoopOptions<T> {
  /** Deliveries in flight at most (claimed, not yet written). */
  capacity: number;
  /** Pause after a claim that found nothing (or failed), unless woken earlier. */
  intervalMs: number;
  /** Claims at most `room` items (they are this replica's once answered). */
  claim: (room: number) => Promise<T[]>;
  /** Sends one claimed item and writes its outcome; never rejects (the caller logs its own failures). */
  deliver: (item: T) => Promise<void>;
  onError: (error: Error) => void;
}

/**
 * The delivery loop of one replica as a pipeline (issue 15): it claims again as soon as there is room, without
 * waiting for the deliveries already in flight, so a slow receiver or an outcome being written never holds back
 * the claim of rows enqueued meanwhile. At most `capacity` deliveries are in flight; a claim that finds nothing
 * waits `intervalMs` or until `poke`. `stop` ends the loop and waits for the deliveries in flight.
 */
export class DeliveryLoop<T> {
  private running = false;
  private done: Promise<void> | undefined;
  private readonly flights = new Set<Promise<void>>();
  private wakeUp: (() => void) | undefined;
  private waitingForRoom = false;

  constructor(private readonly options: DeliveryLoopOptions<T>) {}

  get inFlight(): number {
    return this.flights.size;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.done = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.done;
    this.done = undefined;
  }

  /** New work may be due: ends an idle pause at once. */
  poke(): void {
    if (!this.waitingForRoom) this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const room = this.options.capacity - this.flights.size;
      let claimed = 0;
      if (room > 0)
        try {
          const items = await this.options.claim(room);
          claimed = items.length;
          for (const item of items) this.dispatch(item);
        } catch (error) {
          this.options.onError(error as Error);
        }
      if (!this.running) break;
      if (room <= 0) await this.pause(undefined);
      else if (claimed === 0) await this.pause(this.options.intervalMs);
    }
    await Promise.all(this.flights);
  }

  private dispatch(item: T): void {
    const flight: Promise<void> = this.options.deliver(item).finally(() => {
      this.flights.delete(flight);
      if (this.waitingForRoom) this.wakeUp?.();
    });
    this.flights.add(flight);
  }

  /** Waits `ms` (undefined: until a delivery ends), or until woken. */
  private pause(ms: number | undefined): Promise<void> {
    this.waitingForRoom = ms === undefined;
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const end = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.waitingForRoom = false;
        resolve();
      };
      if (ms !== undefined) timer = setTimeout(end, ms);
      this.wakeUp = end;
    });
  }
}
