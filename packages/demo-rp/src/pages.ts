import { escapeHtml } from '@tessera/platform';

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} – Demo relying party</title>
<link rel="stylesheet" href="/style.css">
</head>
<body>
<header><p class="brand">Demo relying party</p><p class="dev">Development only: a demonstration client of the Tessera token service.</p></header>
<main>
<h1>${escapeHtml(title)}</h1>
${body}
</main>
</body>
</html>
`;
}

export function homePage(): string {
  return layout(
    'Sign in',
    `<p>Choose how you want to sign in.</p>
<form method="post" action="/login/wallet"><button type="submit" id="wallet-login">Sign in with your wallet</button></form>
<form method="post" action="/login/institution"><button type="submit" id="institution-login">Sign in with your institution</button></form>`,
  );
}

const TIME_CLAIMS = new Set(['exp', 'iat', 'nbf', 'auth_time']);

function display(name: string, value: unknown): string {
  if (typeof value === 'number' && TIME_CLAIMS.has(name)) return `${value} (${new Date(value * 1000).toISOString()})`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function claimsTable(id: string, caption: string, claims: Record<string, unknown> | null): string {
  if (!claims) return `<p>${escapeHtml(caption)}: not a JWT, nothing to show.</p>`;
  const rows = Object.entries(claims)
    .map(
      ([name, value]) =>
        `<tr><th scope="row">${escapeHtml(name)}</th><td>${escapeHtml(display(name, value))}</td></tr>`,
    )
    .join('\n');
  return `<table id="${id}"><caption>${escapeHtml(caption)}</caption>
<thead><tr><th scope="col">Claim</th><th scope="col">Value</th></tr></thead>
<tbody>
${rows}
</tbody></table>`;
}

export function signedInPage(input: {
  via: string;
  idTokenClaims: Record<string, unknown>;
  accessTokenClaims: Record<string, unknown> | null;
  scope: string | null;
}): string {
  return layout(
    'You are signed in',
    `<p>Signed in ${input.via === 'wallet' ? 'with your wallet' : 'with your institution'}${input.scope ? `; granted scope: <code>${escapeHtml(input.scope)}</code>` : ''}.</p>
${claimsTable('id-token-claims', 'ID token claims', input.idTokenClaims)}
${claimsTable('access-token-claims', 'Access token claims', input.accessTokenClaims)}
<p><a href="/signout" id="sign-out">Sign out</a></p>`,
  );
}

export function errorPage(code: string, description: string): string {
  return layout(
    'Sign-in failed',
    `<p id="error-code">Error: <code>${escapeHtml(code)}</code></p>
${description ? `<p id="error-description">${escapeHtml(description)}</p>` : ''}
<p><a href="/">Back to the start</a></p>`,
  );
}

export const STYLE = `:root { font-family: system-ui, sans-serif; line-height: 1.5; color: #1b1b1f; background: #fff; }
body { margin: 0; }
header { background: #f3f4f7; padding: 0.75rem 1rem; }
header p { margin: 0; }
.brand { font-weight: 600; }
.dev { color: #7a2e00; }
main { max-width: 52rem; margin: 0 auto; padding: 1rem; }
form { margin: 0.75rem 0; }
button { min-height: 2.75rem; padding: 0.6rem 1.2rem; font: inherit; font-weight: 600; color: #fff; background: #0b4f8a; border: 2px solid #0b4f8a; border-radius: 0.4rem; cursor: pointer; }
button:focus-visible, a:focus-visible { outline: 3px solid #c2410c; outline-offset: 3px; }
a { color: #0b4f8a; }
table { border-collapse: collapse; margin: 1rem 0; width: 100%; }
caption { text-align: left; font-weight: 600; padding: 0.25rem 0; }
th, td { border: 1px solid #b0b0ba; padding: 0.35rem 0.5rem; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
thead th { background: #f3f4f7; }
`;
