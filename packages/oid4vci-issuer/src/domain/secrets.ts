import { createHash, randomBytes, randomInt } from 'node:crypto';

/** 256 bits of randomness, base64url: c_nonce, offer id, transaction_id, notification_id. */
export const randomToken = () => randomBytes(32).toString('base64url');

/** What the tables keep of a value a wallet presents back. */
export const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');

/** A numeric tx_code (OpenID4VCI 1.0 §4.1.1 input_mode numeric) of `length` digits, uniformly random. */
export const numericPin = (length: number) => Array.from({ length }, () => String(randomInt(10))).join('');
