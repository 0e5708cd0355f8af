/**
 * The page of a refused callback (README "Identity verification": an invalid, tampered, expired, reused or foreign
 * state is answered 400 with this page, not redirected: such a state names no session the portal could be told
 * about, and nothing changes). Plain, no script, no external resource, nothing from the request.
 */
export const CALLBACK_PAGE_CSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export const INVALID_STATE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Identity verification</title>
</head>
<body>
<main>
<h1>Identity verification</h1>
<p role="alert">This sign-in link is not valid, has expired or has already been used.</p>
<p>Go back to the sign-in page and start again.</p>
</main>
</body>
</html>`;
