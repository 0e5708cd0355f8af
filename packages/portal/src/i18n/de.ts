import type { Messages } from './en.js';

/** Every text the portal shows, in German (the keys of en.ts). */
export const de: Messages = {
  portalName: 'Tessera-Anmeldung',
  footer: 'Ihre Wallet teilt nur die Angaben, die diese Anmeldung erfragt.',

  signinTitle: 'Mit Ihrer Wallet anmelden',
  signinLinkLabel: 'Oder kopieren Sie den Link in Ihre Wallet:',
  signinCopyLink: 'Link kopieren',
  signinLinkCopied: 'Link kopiert',
  signinClient: 'Sie melden sich bei {client} an.',
  signinScan: 'Scannen Sie den QR-Code mit Ihrer Wallet-App.',
  signinQrAlt:
    'QR-Code mit Ihrer Anmeldeanfrage. Scannen Sie ihn mit Ihrer Wallet-App oder nutzen Sie die Schaltfläche „In Wallet öffnen“.',
  signinSameDevice: 'Ist Ihre Wallet auf diesem Gerät?',
  signinOpenInWallet: 'In Wallet öffnen',
  signinStatusHeading: 'Status',

  statusWaiting: 'Warten auf Ihre Wallet. Scannen Sie den QR-Code oder öffnen Sie die Anfrage in Ihrer Wallet-App.',
  statusOpened: 'Ihre Wallet hat die Anfrage geöffnet. Bestätigen Sie die Freigabe in Ihrer Wallet.',
  statusDeclined:
    'Ihre Wallet hat gemeldet, dass sie diese Anfrage nicht beantworten kann (vielleicht fehlt ihr ein passender Nachweis). Scannen Sie den QR-Code mit einer anderen Wallet, oder beginnen Sie neu.',
  statusChecking: 'Ihr Nachweis wird geprüft …',
  statusVerified: 'Ihr Nachweis ist bestätigt. Sie werden angemeldet …',
  statusIdvNeeded: 'Ihr Nachweis ist bestätigt. Noch ein Schritt: Bestätigen Sie Ihre Identität.',
  statusConfirmNeeded: 'Ihr Nachweis ist bestätigt. Noch ein Schritt: Bestätigen Sie, welches Konto Ihres ist.',
  statusExpired: 'Diese Anmeldeanfrage ist abgelaufen. Beginnen Sie neu, um einen neuen QR-Code zu erhalten.',
  statusFailed: 'Die Anmeldung ist nicht gelungen. {reason}',
  statusLost:
    'Diese Anmeldung ist in diesem Browser nicht mehr aktiv, zum Beispiel weil sie in einem anderen Tab neu begonnen wurde.',
  statusConnection: 'Verbindungsproblem. Neuer Versuch läuft …',
  statusTimeout:
    'Sie haben 5 Minuten ohne Antwort Ihrer Wallet gewartet. Beginnen Sie neu, um einen neuen QR-Code zu erhalten.',
  statusIdvPending: 'Ihre Identitätsprüfung wird abgeschlossen …',
  statusIdvTimeout: 'Ihre Identitätsprüfung dauert zu lange. Bitte beginnen Sie neu.',
  startAgain: 'Neu beginnen',
  noscript:
    'Diese Seite braucht JavaScript, um Ihrer Wallet zu folgen. Bitte schalten Sie JavaScript ein und laden Sie die Seite neu.',

  failureWalletError: 'Ihre Wallet hat die Anfrage abgelehnt oder abgebrochen.',
  failureIssuerTrust: 'Der Nachweis stammt von einem Aussteller, den dieser Dienst nicht akzeptiert.',
  failureStatus: 'Der Nachweis wurde widerrufen oder gesperrt.',
  failureValidityPeriod: 'Der Nachweis ist abgelaufen oder noch nicht gültig.',
  failureDcql: 'Ihre Wallet hat nicht die Angaben geteilt, die diese Anmeldung braucht.',
  failureReplay: 'Diese Antwort Ihrer Wallet wurde bereits verwendet.',
  failureDefault: 'Ihr Nachweis konnte nicht geprüft werden.',

  idvTitle: 'Identität bestätigen',
  idvWhy:
    'Ihr Nachweis ist gültig, aber Ihre Wallet ist hier noch mit keinem Konto verbunden. Melden Sie sich dazu einmal mit dem Konto Ihrer Einrichtung an.',
  idvStepsHeading: 'So geht es weiter',
  idvStep1: 'Sie gelangen zur Anmeldeseite Ihrer Einrichtung.',
  idvStep2: 'Nach der Anmeldung dort wird Ihre Wallet mit Ihrem Konto verbunden.',
  idvStep3:
    'Danach kommen Sie automatisch hierher zurück und die Anmeldung geht weiter. Beim nächsten Mal genügt Ihre Wallet allein.',
  idvButton: 'Weiter zu Ihrer Einrichtung',
  idvCancel: 'Abbrechen und neu beginnen',

  confirmTitle: 'Ist das Ihr Konto?',
  confirmWhy:
    'Ihr Nachweis ist gültig und passt zu einem Konto hier, aber Ihre Wallet ist noch nicht damit verknüpft. Prüfen Sie die Angaben unten: Sie sind absichtlich gekürzt.',
  confirmWhySeveral:
    'Ihr Nachweis ist gültig und passt zu mehr als einem Konto hier. Wählen Sie Ihr Konto: Die Angaben sind absichtlich gekürzt.',
  confirmLegend: 'Konten, die zu Ihrem Nachweis passen',
  confirmAccount: 'Konto {number}',
  confirmInstitution: 'Konto bei {institution}',
  confirmClaimServiceId: 'Dienstkennung',
  confirmClaimEppn: 'Benutzername der Einrichtung',
  confirmClaimEmail: 'E-Mail',
  confirmButton: 'Ja, das ist mein Konto',
  confirmNone: 'Keines davon ist meines: bei meiner Einrichtung bestätigen',
  confirmRefused: 'Bitte wählen Sie eines der aufgeführten Konten.',
  confirmGone: 'Diese Anmeldung wartet nicht mehr auf die Wahl eines Kontos.',

  callbackTitle: 'Ihre Anmeldung wird abgeschlossen',
  callbackErrorTitle: 'Die Identitätsprüfung ist nicht gelungen',
  reasonTokenExchangeFailed: 'Die Antwort Ihrer Einrichtung konnte nicht bestätigt werden.',
  reasonAccessDenied: 'Die Anmeldung bei Ihrer Einrichtung wurde abgebrochen oder abgelehnt.',
  reasonExpired: 'Die Anmeldung hat zu lange gedauert und ist abgelaufen.',
  reasonAlreadyBound: 'Ihr Konto bei der Einrichtung ist bereits mit einer anderen Wallet verbunden.',
  reasonClaimsMismatch:
    'Der Nachweis in Ihrer Wallet gehört zu einer anderen Person als das Konto, mit dem Sie sich bei der Einrichtung angemeldet haben. Melden Sie sich mit Ihrem eigenen Konto an, oder verwenden Sie Ihre eigene Wallet.',
  reasonMissingClaim: 'Ihre Einrichtung hat nicht die Angaben geteilt, die für die Verbindung Ihrer Wallet nötig sind.',
  reasonInvalidState: 'Die Antwort Ihrer Einrichtung passt nicht zu dieser Anmeldung.',
  reasonIdTokenInvalid: 'Die Antwort Ihrer Einrichtung konnte nicht geprüft werden.',
  reasonProviderError: 'Der Anmeldedienst Ihrer Einrichtung hat einen Fehler gemeldet.',
  reasonProviderUnavailable:
    'Der Anmeldedienst Ihrer Einrichtung war nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.',
  reasonSessionInvalid:
    'Diese Anmeldung kann nicht mehr abgeschlossen werden, zum Beispiel weil sie schon abgeschlossen oder anderswo neu begonnen wurde.',
  reasonProcessingFailed: 'Die Antwort Ihrer Einrichtung konnte nicht verarbeitet werden. Bitte beginnen Sie neu.',
  reasonAborted: 'Die Identitätsprüfung wurde abgebrochen.',
  reasonDefault: 'Bei der Bestätigung Ihrer Identität ist etwas schiefgegangen.',
  reasonCode: 'Referenz für den Support: {code}',
  callbackMismatch: 'Dieser Link gehört nicht zu der Anmeldung, die in diesem Browser begonnen wurde.',

  errorTitle: 'Die Anmeldung kann nicht fortgesetzt werden',
  errorInvalidRequest:
    'Die Anwendung, von der Sie kommen, hat eine Anmeldeanfrage gestellt, die nicht angenommen werden kann.',
  errorDetails: 'Details: {detail}',
  errorUnavailable: 'Der Anmeldedienst ist vorübergehend nicht erreichbar. Bitte versuchen Sie es gleich noch einmal.',
  errorLost: 'Wir konnten Ihre Anmeldung in diesem Browser nicht finden. Sie ist vielleicht abgelaufen.',
  returnToApp: 'Bitte kehren Sie zu der Anwendung zurück, von der Sie kamen, und melden Sie sich erneut an.',
};
