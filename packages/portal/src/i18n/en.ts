/**
 * Every text the portal shows, in English. `{name}` marks a value filled in at render time (always HTML-escaped).
 * The German catalogue (de.ts) has exactly these keys; a test keeps the two in step.
 */
export const en = {
  portalName: 'Tessera sign-in',
  footer: 'Your wallet shares only the information this sign-in asks for.',

  signinTitle: 'Sign in with your wallet',
  signinLinkLabel: 'Or copy the link into your wallet:',
  signinCopyLink: 'Copy link',
  signinLinkCopied: 'Link copied',
  signinClient: 'You are signing in to {client}.',
  signinScan: 'Scan the QR code with your wallet app.',
  signinQrAlt: 'QR code with your sign-in request. Scan it with your wallet app, or use the Open in wallet button.',
  signinSameDevice: 'Is your wallet on this device?',
  signinOpenInWallet: 'Open in wallet',
  signinStatusHeading: 'Status',

  statusWaiting: 'Waiting for your wallet. Scan the QR code or open the request in your wallet app.',
  statusOpened: 'Your wallet opened the request. Confirm the sharing in your wallet.',
  statusDeclined:
    'Your wallet reported that it cannot answer this request (it may not hold a suitable credential). Scan the QR code with another wallet, or start again.',
  statusChecking: 'Checking your credential…',
  statusVerified: 'Your credential is verified. Signing you in…',
  statusIdvNeeded: 'Your credential is verified. One more step: confirm your identity.',
  statusConfirmNeeded: 'Your credential is verified. One more step: confirm which account is yours.',
  statusExpired: 'This sign-in request has expired. Start again to get a new QR code.',
  statusFailed: 'The sign-in did not succeed. {reason}',
  statusLost:
    'This sign-in is no longer active in this browser, for example because it was started again in another tab.',
  statusConnection: 'Connection problem. Still trying…',
  statusTimeout: 'You waited 5 minutes without a response from your wallet. Start again to get a new QR code.',
  statusIdvPending: 'Finishing your identity verification…',
  statusIdvTimeout: 'Your identity verification is taking too long. Please start again.',
  startAgain: 'Start again',
  noscript: 'This page needs JavaScript to follow your wallet. Please turn JavaScript on and reload the page.',

  failureWalletError: 'Your wallet declined or cancelled the request.',
  failureIssuerTrust: 'The credential comes from an issuer that this service does not accept.',
  failureStatus: 'The credential has been revoked or suspended.',
  failureValidityPeriod: 'The credential has expired or is not valid yet.',
  failureDcql: 'Your wallet did not share the information this sign-in needs.',
  failureReplay: 'This answer from your wallet had already been used.',
  failureDefault: 'Your credential could not be verified.',

  idvTitle: 'Confirm your identity',
  idvWhy:
    'Your credential is valid, but your wallet is not linked to an account here yet. To link it, sign in once with your institution account.',
  idvStepsHeading: 'What happens next',
  idvStep1: 'You go to the sign-in page of your institution.',
  idvStep2: 'After you sign in there, your wallet is linked to your account.',
  idvStep3: 'You come back here automatically and the sign-in continues. Next time, your wallet alone is enough.',
  idvButton: 'Continue to your institution',
  idvCancel: 'Cancel and start again',

  confirmTitle: 'Is this your account?',
  confirmWhy:
    'Your credential is valid and matches an account here, but your wallet is not linked to it yet. Check the details below: they are shortened on purpose.',
  confirmWhySeveral:
    'Your credential is valid and matches more than one account here. Choose the one that is yours: the details are shortened on purpose.',
  confirmLegend: 'Accounts that match your credential',
  confirmAccount: 'Account {number}',
  confirmInstitution: 'Account at {institution}',
  confirmClaimServiceId: 'Service ID',
  confirmClaimEppn: 'Institution username',
  confirmClaimEmail: 'E-mail',
  confirmButton: 'Yes, this is my account',
  confirmNone: 'None of these is mine: verify at my institution',
  confirmRefused: 'Please choose one of the accounts listed.',
  confirmGone: 'This sign-in is no longer waiting for a choice of account.',

  callbackTitle: 'Finishing your sign-in',
  callbackErrorTitle: 'Identity verification did not succeed',
  reasonTokenExchangeFailed: 'The answer from your institution could not be confirmed.',
  reasonAccessDenied: 'The sign-in at your institution was cancelled or refused.',
  reasonExpired: 'The sign-in took too long and has expired.',
  reasonAlreadyBound: 'Your institution account is already linked to a different wallet.',
  reasonClaimsMismatch:
    'The credential in your wallet belongs to someone else than the institution account you signed in with. Sign in with your own account, or use your own wallet.',
  reasonMissingClaim: 'Your institution did not share the information needed to link your wallet.',
  reasonInvalidState: 'The answer from your institution did not match this sign-in.',
  reasonIdTokenInvalid: 'The answer from your institution could not be verified.',
  reasonProviderError: 'Your institution’s sign-in service reported an error.',
  reasonProviderUnavailable: 'Your institution’s sign-in service could not be reached. Please try again in a moment.',
  reasonSessionInvalid:
    'This sign-in can no longer be finished, for example because it was completed or started again elsewhere.',
  reasonProcessingFailed: 'The answer from your institution could not be processed. Please start again.',
  reasonAborted: 'The identity verification was cancelled.',
  reasonDefault: 'Something went wrong while confirming your identity.',
  reasonCode: 'Reference for support: {code}',
  callbackMismatch: 'This link does not belong to the sign-in that was started in this browser.',

  errorTitle: 'Sign-in cannot continue',
  errorInvalidRequest: 'The application that sent you here made a sign-in request that cannot be accepted.',
  errorDetails: 'Details: {detail}',
  errorUnavailable: 'The sign-in service is temporarily unavailable. Please try again in a moment.',
  errorLost: 'We could not find your sign-in in this browser. It may have expired.',
  returnToApp: 'Please return to the application you came from and sign in again.',
} as const;

export type MessageKey = keyof typeof en;
export type Messages = Record<MessageKey, string>;
