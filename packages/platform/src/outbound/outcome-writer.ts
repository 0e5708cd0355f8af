/**
 * Group commit of delivery outcomes (issue 15): an outcome is written at once when no write is in flight;
 * outcomes that arrive meanwhile wait for that write and then go together in the next one. So a round of many
 * concurrent deliveries costs a few writes, not one transaction per delivery, and a delivery's status is still
 * written as soon as the database takes it (never held back for the round's slowest receiver). `record` settles
 * when its outcome is written, or fails with the write that carried it.
 */
export class OutcomeWriter<T> {
  private pending: { item: T; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private draining = false;

  constructor(private readonly write: (items: T[]) => Promise<void>) {}

  record(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      try {
        await this.write(batch.map((entry) => entry.item));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    this.draining = false;
  }
}
