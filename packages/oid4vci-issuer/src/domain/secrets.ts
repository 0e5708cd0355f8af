import { createHash, randomInt } from 'node:crypto';
import { secureRandomToken } from '@tessera/platform';

/** 256 bits of randomness, base64url: c_nonce, offer id, transaction_id, notification_id. */
export const randomToken = () => secureRandomToken(32);

/** What the tables keep of a value a wallet presents back. */
export const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');

/** A numeric tx_code (OpenID4VCI 1.0 §4.1.1 input_mode numeric) of `length` digits, uniformly random. */
export const numericPin = (length: number) => Array.from({ length }, () => String(randomInt(10))).join('');
