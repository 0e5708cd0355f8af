export { freePort } from '@tessera/platform/testing';

/** A clock the test can move forward and back: the bridge's sessions expire without a 5-minute wait. */
export class OffsetClock {
  offsetSeconds = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetSeconds * 1000);
  }
}
