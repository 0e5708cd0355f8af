import { escapeHtml, secureRandomBytes } from '@tessera/platform';
import type { QrPageModel } from '../commands/get-qr-page.js';
import type { PortalLook } from './portal-look.js';

/**
 * The standalone QR page (000 §4.1 qrPageUri): the QR image with a text alternative, the same request as a link
 * for a wallet on this device, and the status read aloud as it changes (an ARIA live region), polled every 2
 * seconds until a terminal state or the expiry (000 §8). No tenant name, no personal data; the portal's stylesheet
 * and icon (portal-look.ts) are its only external resources; a CSP nonce admits the one inline script.
 */

const STATUS_TEXT: Record<string, string> = {
  CREATED: 'Waiting for your wallet to scan the code.',
  INTERACTION_STARTED: 'Your wallet has opened the request. Confirm the presentation in your wallet.',
  VERIFYING: 'Checking the presentation…',
  VERIFIED: 'Presentation verified. You can continue in the sign-in window.',
  IDV_REQUIRED: 'Presentation verified. One more step is needed in the sign-in window.',
  MATCH_CONFIRMATION_REQUIRED: 'Presentation verified. Confirm your account in the sign-in window.',
  COMPLETED: 'Signed in. You can close this page.',
  EXPIRED: 'This code has expired. Start the sign-in again.',
  ERROR: 'The presentation was not accepted. Start the sign-in again.',
};

export function renderQrPage(model: QrPageModel, nonce: string, look: PortalLook): string {
  const statusUrl = `./${encodeURIComponent(model.sessionId)}/status`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Sign in with your wallet</title>
${look.head}
<style nonce="${nonce}">
  body { font-family: system-ui, sans-serif; margin: 0; padding: 2rem 1rem; color: #111; background: #fff; }
  main { max-width: 28rem; margin: 0 auto; text-align: center; }
  img { width: 100%; max-width: 18rem; height: auto; image-rendering: pixelated; border: 1px solid #ccc; }
  a { color: #0645ad; word-break: break-all; }
  a:focus, a:hover { outline: 3px solid #fd0; }
  #status { font-size: 1.1rem; margin-top: 1.5rem; min-height: 3em; }
  @media (prefers-color-scheme: dark) { body { color: #eee; background: #111; } a { color: #9cf; } }
</style>
</head>
<body>
<main>
  <h1>Sign in with your wallet</h1>
  <p>Scan this code with your wallet app.</p>
  <img src="${escapeHtml(model.qrCodeDataUri)}" alt="QR code of the sign-in request for your wallet" width="288" height="288">
  <p>Wallet on this device? <a href="${escapeHtml(model.requestUri)}">Open the request in your wallet</a>.</p>
  <p id="status" role="status" aria-live="polite" data-status="${escapeHtml(model.status)}">${escapeHtml(STATUS_TEXT[model.status] ?? model.status)}</p>
</main>
<script nonce="${nonce}">
(() => {
  const texts = ${JSON.stringify(STATUS_TEXT).replace(/</g, '\\u003c')};
  const terminal = ['VERIFIED', 'IDV_REQUIRED', 'MATCH_CONFIRMATION_REQUIRED', 'COMPLETED', 'EXPIRED', 'ERROR'];
  const until = performance.now() + ${JSON.stringify(model.msLeft)};
  const el = document.getElementById('status');
  const show = (status) => {
    if (el.dataset.status === status) return;
    el.dataset.status = status;
    el.textContent = texts[status] || status;
  };
  const poll = async () => {
    if (terminal.includes(el.dataset.status)) return;
    if (performance.now() > until + 5000) return show('EXPIRED');
    try {
      const res = await fetch(${JSON.stringify(statusUrl)}, { headers: { accept: 'application/json' }, cache: 'no-store' });
      if (res.ok) show((await res.json()).status);
      else if (res.status === 404 || res.status === 410) return show('EXPIRED');
    } catch (e) {}
    setTimeout(poll, 2000);
  };
  setTimeout(poll, 2000);
})();
</script>
</body>
</html>`;
}

export const pageNonce = () => secureRandomBytes(16).toString('base64');

/** Only what the page uses: its own inline script and style, the portal's stylesheet and icon, data: images, fetches to this origin. */
export function qrPageCsp(nonce: string, frameAncestors: readonly string[], portalOrigin: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}' ${portalOrigin}`,
    `img-src data: ${portalOrigin}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${frameAncestors.length > 0 ? frameAncestors.join(' ') : "'none'"}`,
  ].join('; ');
}
