import type { PortalLook } from '../../http/portal-look.js';

/**
 * The page of a refused callback (README "Identity verification": an invalid, tampered, expired, reused or foreign
 * state is answered 400 with this page, not redirected: such a state names no session the portal could be told
 * about, and nothing changes). Plain, no script, nothing from the request; the portal's stylesheet and icon
 * (portal-look.ts) are its only external resources.
 */
export const callbackPageCsp = (portalOrigin: string) =>
  `default-src 'none'; style-src ${portalOrigin}; img-src ${portalOrigin}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

export const invalidStatePage = (look: PortalLook) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Identity verification</title>
${look.head}
</head>
<body>
<main>
<h1>Identity verification</h1>
<p role="alert">This sign-in link is not valid, has expired or has already been used.</p>
<p>Go back to the sign-in page and start again.</p>
</main>
</body>
</html>`;
