/**
 * The checkout's state, and what the steps read off it: the inputs the host sets, what the customer
 * typed and chose, the link and the session as the service last said, and the figures derived from
 * them (the price, why an amount is refused, what is due, the wallet's transfer, the countdown).
 * `CheckoutMachine` (./checkout-machine.ts) moves it from step to step.
 */
import { compareDecimal, fractionDigits, toUnits } from '../../core/money.js';
import type { TokenTransfer, Wallet } from '../../internal/evm-wallet.js';
import type { Localizer } from '../../internal/localize.js';
import type { CheckoutSession, PublicDonor } from '../../core/schemas.js';
import { checkDonationBounds, readTypedAmount } from '../../core/rules/amount.js';
import { MAX_AMOUNT } from '../../core/rules/limits.js';
import type { CheckoutView, FieldPath, MessageKey, Messages, Payable } from './checkout-types.js';

/** The checkout's state and the figures derived from it; see the module comment. */
export class CheckoutState {
  // Inputs, set by the host.
  /** Where the merchant's Paylink proxy is mounted. */
  apiBase = '/paylink';
  /** The `fetch` of every request (the global one by default). */
  fetch?: typeof fetch | undefined;
  /** Texts and formats of the host's locale. */
  l10n!: Localizer<Messages>;
  /** What the page says the payment is for, sent as the session's `reference` (stored as its `clientReference`). */
  clientReference?: string | undefined;
  /** The merchant's string pairs, sent with the session. */
  metadata?: Record<string, string> | undefined;
  /** The browser wallets found in the page. */
  wallets: Wallet[] = [];
  /** Show a fundraiser's latest public donors: how many (any other value than a count: 5); unset for none. */
  donors?: string | number | undefined;

  // State.
  view: CheckoutView = 'loading';
  link?: Payable | undefined;
  session?: CheckoutSession | undefined;
  /** The donation amount as typed. */
  amountText = '';
  address = '';
  phone = '';
  /** A donor's name and message as typed, and whether they chose to be listed on the page (unset reads as false). */
  donorName = '';
  message = '';
  showPublicly?: boolean;
  /** A fundraiser's latest public donors (when the page asks for them), newest first. */
  publicDonors?: PublicDonor[];
  /** The asset chosen to pay in, and its network (empty: the one network that carries the asset). */
  assetId = '';
  network = '';
  /** Field errors by path, from the form or the server. */
  errors: Partial<Record<FieldPath, string>> = {};
  /** A request is under way: its buttons are disabled. */
  busy = false;
  /** Where the paid checkout is leaving for (http/https only). */
  redirectTo = '';
  /** What the polite live region says. */
  announcement = '';
  /** What was copied last (its button says so until the next copy); unset until a copy. */
  copied?: MessageKey;
  /** Set when fields were refused: the host focuses the first one, then clears it (unset reads as false). */
  focusInvalid?: boolean;
  /** Why the last wallet payment stopped, in words. */
  walletError = '';
  /** The hash of the transfer the wallet sent. */
  sentHash = '';

  /** A text of the locale. */
  t(key: MessageKey, values?: Record<string, string | number>): string {
    return this.l10n.t(key, values);
  }

  /** A fiat amount in the link's currency. */
  money(amount: string): string {
    return this.l10n.money(amount, this.currency);
  }

  /** The currency the link is priced in (its first; an order's only). */
  get currency(): string {
    return [this.link!.fiatCurrency].flat()[0]!;
  }

  /** The link asks for the customer's address or phone. */
  get needsDetails(): boolean {
    const options = this.link!.prepayOptions;
    return options.collectAddress || options.collectPhone;
  }

  /** The fiat amount to pay: the link's, or the donor's as typed (a canonical decimal, '' when unreadable). */
  get price(): string {
    const link = this.link!;
    if (link.linkType != 'Donation') return link.fiatAmount;
    // `1 000,50` (fr) or `1,000.50` (en) â `1000.50`: the admin reads typed amounts by the same rule.
    return readTypedAmount(this.amountText, this.l10n.decimalSeparator) ?? '';
  }

  /** Why the amount cannot be paid as it stands ('' when it can). */
  get amountProblem(): string {
    const { minAmount: min, maxAmount: max, suggestedAmounts, linkType } = this.link!;
    const amount = this.price;
    let refused;
    return linkType != 'Donation'
      ? ''
      : !amount || fractionDigits(amount) > this.l10n.digits(this.currency) || !compareDecimal(amount, '0')
        ? this.t('badAmount', { amount: this.money(suggestedAmounts![0] ?? min ?? '10') })
        : // The service's bounds rule, with the largest amount the API takes where the link sets none.
          (refused = checkDonationBounds(amount, min, max ?? MAX_AMOUNT))
          ? this.t(refused.key, { amount: this.money(refused.params.amount) })
          : '';
  }

  /** The crypto amount still to send in the session. */
  get due(): string {
    const session = this.session!;
    return session.status == 'underpaid' ? session.remainingAmount : session.cryptoAmount;
  }

  /** The ERC-20 transfer that pays the session; undefined where the chain has no token (the sandbox). */
  get transfer(): TokenTransfer | undefined {
    const { chainId, tokenAddress: token, tokenDecimals, payAddress: to, blockchainId } = this.session!;
    // What the wallet needs to add the network comes with the link's pairs: the bundle knows no network.
    const add = this.link?.assets.find((asset) => asset.blockchainId == blockchainId)?.addNetwork;
    return chainId && token && tokenDecimals != null ? { chainId, token, to, units: toUnits(this.due, tokenDecimals), add } : undefined;
  }

  /** `Confirming n/N…` while a seen transfer gathers its confirmations. */
  get progress(): string {
    const { confirmations, requiredConfirmations } = this.session!;
    return this.t('confirming', { n: confirmations ?? 0, total: requiredConfirmations ?? '?' });
  }

  /** The time the price is still held, `m:ss` (minutes may pass 59; never negative). */
  get countdown(): string {
    const left = Math.max(0, Math.ceil((Date.parse(this.session!.expiresAt) - Date.now()) / 1000));
    return `${(left / 60) | 0}:${String(left % 60).padStart(2, '0')}`;
  }
}
