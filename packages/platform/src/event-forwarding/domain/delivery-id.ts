import { createHash } from 'node:crypto';

/**
 * The outbox id (the `webhook-id` the receiver sees) of one event on one stream: a name-based UUID (RFC 9562 §5.5,
 * version 5 layout over SHA-1 of "<stream id>/<event id>"). The same event on the same stream always gets the same
 * row, so two writers of it (a replica that lost a race, a retried round) can never make two deliveries.
 */
export function deliveryIdOf(streamId: string, eventId: string): string {
  const bytes = createHash('sha1').update(`${streamId}/${eventId}`).digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
