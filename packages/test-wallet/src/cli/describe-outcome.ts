import type { RespondResult } from '../wallet/respond-to-request.js';

function reasonOf(body: unknown): string {
  if (typeof body === 'object' && body !== null) {
    const { error, error_description: description } = body as { error?: unknown; error_description?: unknown };
    if (typeof description === 'string') return typeof error === 'string' ? `${error}: ${description}` : description;
    if (typeof error === 'string') return error;
    return JSON.stringify(body);
  }
  return String(body).slice(0, 300) || '(empty answer)';
}

/** The outcome of a login in plain words, one line each. */
export function describeOutcome(result: RespondResult): string[] {
  const lines = [`Verifier: ${result.request.clientId} (response mode ${result.request.responseMode}).`];
  for (const item of result.posted.presented) {
    const claims =
      item.disclosedClaims.length > 0 ? item.disclosedClaims.join(', ') : 'no selectively disclosed claims';
    lines.push(`Presented a ${item.format} credential for '${item.credentialQueryId}': ${claims}.`);
  }
  for (const warning of result.warnings) {
    if (warning.startsWith('x509-untrusted')) {
      lines.push(
        'Note: the verifier certificate was not checked against a trust anchor (use --trust-anchor <ca.pem> to check it).',
      );
    } else {
      lines.push(`Note: ${warning}`);
    }
  }
  if (result.status >= 200 && result.status < 300) {
    lines.push(`The verifier accepted the presentation (HTTP ${result.status}).`);
    if (result.redirectUri) lines.push(`Continue in the browser: ${result.redirectUri}`);
  } else {
    lines.push(`The verifier rejected the presentation (HTTP ${result.status}): ${reasonOf(result.body)}`);
  }
  return lines;
}
