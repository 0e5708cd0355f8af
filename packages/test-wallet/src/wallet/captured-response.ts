import type { CredentialFormat } from '../common/credential-format.js';

/** What the wallet posted last, so a test can inspect it or replay it (`replayFrom`, `resubmitLastResponse`). */
export interface CapturedResponse {
  responseUri: string;
  responseMode: 'direct_post' | 'direct_post.jwt';
  clientId: string;
  nonce: string;
  state: string | undefined;
  /** The exact form fields posted: `vp_token` and `state`, or `response` (the JWE). */
  form: Record<string, string>;
  /** The vp_token before encoding or encryption, keyed by credential query id (OpenID4VP 1.0 §8.1). */
  vpToken: Record<string, string[]>;
  presented: Array<{ credentialQueryId: string; format: CredentialFormat; disclosedClaims: string[] }>;
}
