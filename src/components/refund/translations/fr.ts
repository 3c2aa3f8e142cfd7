/**
 * French texts of `<paylink-refund>` (keys and placeholders as in `en.ts`), set as French print does: a
 * narrow no-break space (U+202F) before `:` and `!`, and the ’ apostrophe.
 */
import type en from './en.js';

const fr: typeof en = {
  loading: 'Chargement de votre remboursement…',
  invalidTitle: 'Ce lien de remboursement ne fonctionne pas',
  invalidBody: 'Vérifiez que vous avez ouvert le lien en entier (il est long), ou demandez-en un nouveau au marchand.',
  errorTitle: 'Votre remboursement n’a pas pu être chargé',
  errorBody: 'Vérifiez votre connexion et réessayez. Rien n’a été envoyé.',
  retry: 'Réessayer',
  testMode: 'Mode test\u202f: aucun fonds réel',
  refunding: '{merchant} vous rembourse',
  refundingAnon: 'Vous êtes remboursé',
  forLabel: 'Pour',
  networkLabel: 'Réseau',
  ask: 'Où l’envoyer\u202f? Donnez une adresse que vous contrôlez sur {network}. Elle ne se donne qu’une fois et ne peut pas être changée.',
  useWallet: 'Utiliser {name}',
  browserWallet: 'Utiliser mon portefeuille du navigateur',
  or: 'ou collez-la',
  addressLabel: 'Votre adresse sur {network}',
  submit: 'Envoyer mon remboursement ici',
  sending: 'Envoi…',
  fromWallet: 'L’adresse de votre portefeuille est remplie\u202f: vérifiez-la, puis envoyez.',
  badAddress: 'Saisissez une adresse\u202f: 0x suivi de 40 lettres et chiffres.',
  badChecksum:
    'Cette adresse échoue à sa somme de contrôle\u202f: un caractère est mal saisi ou sa casse est fausse. Copiez-la de nouveau depuis votre portefeuille.',
  walletRejected: 'Votre portefeuille a refusé. Réessayez, ou collez une adresse.',
  walletFailed: 'Votre portefeuille n’a pas répondu. Collez plutôt une adresse.',
  pending: 'En route vers {address}.',
  success: 'Envoyé à {address}.',
  viewTx: 'Voir la transaction',
  opensNewTab: '(nouvel onglet)',
  failed: 'Le paiement vers votre adresse n’a pas abouti, et {merchant} a récupéré le montant. Contactez-le.',
  cancelled: '{merchant} a annulé ce remboursement. Contactez-le.',
  theMerchant: 'le marchand',
};

export default fr;
