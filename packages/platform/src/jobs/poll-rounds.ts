/**
 * The loop of a background worker that works in rounds (the outbox delivery, the audit forwarding): a round that
 * did something is followed at once by the next; an idle or failed round waits `intervalMs`, or less when `wake`
 * is called (new work written by this process). A failed round is logged and the loop goes on.
 */
export async function pollRounds(options: {
  isRunning: () => boolean;
  /** Does one round; answers how much it did (0: idle). */
  round: () => Promise<number>;
  intervalMs: number;
  onError: (error: Error) => void;
  /** Receives the function that ends the current wait early. */
  setWake: (wake: () => void) => void;
}): Promise<void> {
  while (options.isRunning()) {
    let done = 0;
    try {
      done = await options.round();
    } catch (error) {
      options.onError(error as Error);
    }
    if (done === 0 && options.isRunning())
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.intervalMs);
        options.setWake(() => {
          clearTimeout(timer);
          resolve();
        });
      });
  }
}
