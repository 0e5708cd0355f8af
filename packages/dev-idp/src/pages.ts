import { escapeHtml } from '@tessera/platform';
import type { DemoUser } from './types.js';

export { escapeHtml };

// Inline styles only: the pages load nothing from elsewhere, so they work offline.
const STYLE = `body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1a1a1a}
label{display:block;margin-top:1rem;font-weight:600}input{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
.actions{display:flex;gap:.5rem;margin-top:1.5rem}button{padding:.5rem 1.25rem;font-size:1rem;cursor:pointer}
.error{border:2px solid #b00020;color:#b00020;padding:.5rem;margin:1rem 0}.hint{margin-top:2rem;padding:.5rem 1rem;background:#f3f3f3;border:1px solid #ccc;font-size:.9rem}
.hint table{border-collapse:collapse}.hint th,.hint td{text-align:left;padding:.1rem 1rem .1rem 0}:focus{outline:3px solid #1a55c4;outline-offset:2px}`;

export function layout(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

export interface LoginPageInput {
  uid: string;
  clientId: string;
  users: readonly DemoUser[];
  username?: string;
  error?: string;
}

/**
 * The login form comes first and names its action, so a scripted client that takes the first form's action
 * posts the credentials, and `<action>/abort` cancels.
 */
export function loginPage({ uid, clientId, users, username = '', error }: LoginPageInput): string {
  const action = `/interaction/${encodeURIComponent(uid)}`;
  const described = error ? ' aria-describedby="login-error" aria-invalid="true"' : '';
  const alert = error ? `<p id="login-error" class="error" role="alert">${escapeHtml(error)}</p>` : '';
  const rows = users
    .map(
      (u) =>
        `<tr><td><code>${escapeHtml(u.username)}</code></td><td><code>${escapeHtml(u.password)}</code></td><td>${escapeHtml(u.claims.name)}</td></tr>`,
    )
    .join('');
  return layout(
    'Sign in – development identity provider',
    `<h1>Sign in</h1>
<p>to continue to <strong>${escapeHtml(clientId)}</strong></p>
${alert}
<form method="post" action="${action}">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" required autofocus value="${escapeHtml(username)}"${described}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${described}>
<div class="actions"><button type="submit">Sign in</button></div>
</form>
<form method="post" action="${action}/abort">
<div class="actions"><button type="submit">Cancel</button></div>
</form>
<aside class="hint" aria-labelledby="demo-accounts">
<h2 id="demo-accounts">Demo accounts</h2>
<p>This is a development provider: these accounts are public.</p>
<table><thead><tr><th scope="col">Username</th><th scope="col">Password</th><th scope="col">Name</th></tr></thead><tbody>${rows}</tbody></table>
</aside>`,
  );
}

export function messagePage(title: string, message: string): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(message)}</p>`);
}

/** oidc-provider hands over its own hidden form (with its CSRF token); the buttons submit it. */
export function logoutPage(form: string): string {
  return layout(
    'Sign out – development identity provider',
    `<h1>Sign out?</h1>
${form}
<div class="actions">
<button type="submit" form="op.logoutForm" name="logout" value="yes" autofocus>Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button>
</div>`,
  );
}
