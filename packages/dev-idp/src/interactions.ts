import { errors } from 'oidc-provider';
import type Provider from 'oidc-provider';
import { FormBodyError, readUrlEncodedForm } from './form-body.js';
import { sendHtml, seeOther, type KoaContext, type Middleware } from './koa.js';
import { loginPage, messagePage } from './pages.js';
import type { UserDirectory } from './users.js';

type InteractionDetails = Awaited<ReturnType<Provider['interactionDetails']>>;

export interface InteractionDeps {
  provider: Provider;
  users: UserDirectory;
  /** The `acr` recorded on the session, which oidc-provider copies into the ID token. */
  acr: string;
}

// oidc-provider interaction uids are nanoids: URL-safe base64 characters.
const ROUTE = /^\/interaction\/([A-Za-z0-9_-]+)(\/abort)?$/;

/**
 * The login and consent steps of oidc-provider's interactions (its README, "User flows"): login by the demo
 * username and password, consent granted automatically for everything asked for. Cross-site posts are kept out
 * by the interaction cookie, which is SameSite=Lax and scoped to this interaction's path.
 */
export function interactionRoutes(deps: InteractionDeps): Middleware {
  return async (ctx, next) => {
    const match = ROUTE.exec(ctx.path);
    if (!match) return next();
    const uid = match[1]!;
    const abort = match[2] !== undefined;
    try {
      if (ctx.method === 'GET' && !abort) return await show(deps, ctx, uid);
      if (ctx.method === 'POST') return abort ? await cancel(deps, ctx, uid) : await login(deps, ctx, uid);
      ctx.set('allow', abort ? 'POST' : 'GET, POST');
      sendHtml(ctx, 405, messagePage('Method not allowed', 'Use the sign-in page.'));
    } catch (error) {
      if (error instanceof FormBodyError) return sendHtml(ctx, error.status, messagePage('Bad request', error.message));
      if (error instanceof errors.SessionNotFound) {
        return sendHtml(
          ctx,
          400,
          messagePage(
            'Sign-in expired',
            'This sign-in request is unknown or has expired. Start again from the application.',
          ),
        );
      }
      throw error;
    }
  };
}

async function details(deps: InteractionDeps, ctx: KoaContext, uid: string): Promise<InteractionDetails> {
  const interaction = await deps.provider.interactionDetails(ctx.req, ctx.res);
  // The cookie names the interaction; the URL must name the same one.
  if (interaction.uid !== uid) throw new errors.SessionNotFound('interaction mismatch');
  return interaction;
}

async function show(deps: InteractionDeps, ctx: KoaContext, uid: string): Promise<void> {
  const interaction = await details(deps, ctx, uid);
  if (interaction.prompt.name === 'login') {
    return sendHtml(
      ctx,
      200,
      loginPage({ uid, clientId: String(interaction.params.client_id), users: deps.users.users }),
    );
  }
  if (interaction.prompt.name === 'consent') {
    const returnTo = await deps.provider.interactionResult(
      ctx.req,
      ctx.res,
      await grantEverything(deps.provider, interaction),
    );
    return seeOther(ctx, returnTo);
  }
  sendHtml(
    ctx,
    400,
    messagePage('Unsupported step', `This provider does not handle the "${interaction.prompt.name}" step.`),
  );
}

async function login(deps: InteractionDeps, ctx: KoaContext, uid: string): Promise<void> {
  const interaction = await details(deps, ctx, uid);
  if (interaction.prompt.name !== 'login') return seeOther(ctx, `/interaction/${uid}`);
  const form = await readUrlEncodedForm(ctx.req);
  const username = form.get('username') ?? '';
  const user = deps.users.authenticate(username, form.get('password') ?? '');
  if (!user) {
    // 200 with the form again: the person corrects the entry on the same page.
    const error = 'The username or password is not correct.';
    return sendHtml(
      ctx,
      200,
      loginPage({ uid, clientId: String(interaction.params.client_id), users: deps.users.users, username, error }),
    );
  }
  // interactionResult rather than interactionFinished: Koa writes the 303, instead of the response being ended
  // behind Koa's back.
  const returnTo = await deps.provider.interactionResult(
    ctx.req,
    ctx.res,
    { login: { accountId: user.sub, acr: deps.acr, amr: ['pwd'] } },
    { mergeWithLastSubmission: false },
  );
  seeOther(ctx, returnTo);
}

/** OpenID Connect Core 3.1.2.6: the person refused, the relying party gets `access_denied`. */
async function cancel(deps: InteractionDeps, ctx: KoaContext, uid: string): Promise<void> {
  await details(deps, ctx, uid);
  const returnTo = await deps.provider.interactionResult(
    ctx.req,
    ctx.res,
    { error: 'access_denied', error_description: 'The person cancelled the sign-in.' },
    { mergeWithLastSubmission: false },
  );
  seeOther(ctx, returnTo);
}

/** A development provider asks no consent: it grants what the consent prompt reports missing. */
async function grantEverything(provider: Provider, interaction: InteractionDetails) {
  const missing = interaction.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  const accountId = interaction.session?.accountId;
  if (!accountId) throw new errors.SessionNotFound('no login before consent');
  const grant = interaction.grantId
    ? await provider.Grant.find(interaction.grantId)
    : new provider.Grant({ accountId, clientId: String(interaction.params.client_id) });
  if (!grant) throw new errors.SessionNotFound('grant not found');
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope);
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, scopes);
  const grantId = await grant.save();
  // A new grant is handed over by id; an existing one was updated in place.
  return { consent: interaction.grantId ? {} : { grantId } };
}
