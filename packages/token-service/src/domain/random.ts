import { hash } from 'node:crypto';
import { secureRandomToken } from '@tessera/platform';

const TOKEN_BYTES = 32;

/**
 * Opaque credentials (codes, refresh tokens): 256 random bits, stored only as their SHA-256 hash. Drawn from the
 * platform's block of CSPRNG output (secure-random.ts): each byte is used once.
 */
export const newOpaqueToken = (): string => secureRandomToken(TOKEN_BYTES);

export const hashToken = (token: string): string => hash('sha256', token, 'base64url');
