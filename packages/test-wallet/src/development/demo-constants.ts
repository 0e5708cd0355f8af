/**
 * Names shared by the test wallet's demo credentials and a development verifier configuration: a development
 * profile that asks for these `vct` / `type` values and trusts the development issuer accepts the CLI's credentials.
 */
export const DEMO_VCT = 'urn:tessera:credential:identity:1';
export const DEMO_VC_TYPE = 'TesseraIdentityCredential';
/** The CLI's data directory, relative to the working directory. */
export const DEFAULT_WALLET_DATA_DIR = 'data/test-wallet';
/** Where the CLI serves the status lists while it runs; the credentials it issues reference this base URL. */
export const DEVELOPMENT_STATUS_PORT = 8500;
export const DEVELOPMENT_STATUS_BASE_URL = `http://127.0.0.1:${DEVELOPMENT_STATUS_PORT}`;
