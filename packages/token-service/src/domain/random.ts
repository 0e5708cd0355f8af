import { createHash, randomBytes } from 'node:crypto';

/** Opaque credentials (codes, refresh tokens): 256 random bits, stored only as their SHA-256 hash. */
export const newOpaqueToken = (): string => randomBytes(32).toString('base64url');
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('base64url');
