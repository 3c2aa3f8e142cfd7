/**
 * The checkout as a state machine, without DOM: load the link, take the amount, the customer's
 * details and the asset, start and follow the payment session, and pay it from a browser wallet.
 * Everything the machine cannot do itself (network, storage, clipboard, navigation, events, timers,
 * rendering) it asks of its `CheckoutHost` (./checkout-types.ts); `<paylink-checkout>` is one host,
 * the unit tests (`test/components/checkout/checkout-machine.test.ts`) another. The state the steps
 * render, and the figures derived from it, are its base's (./checkout-state.ts); its methods are the
 * steps' callbacks.
 *
 *     loading → amount → [details] → pay ⇄ (change asset) → done | expired
 *          ↘ notFound | inactive | closed | paid | error (retry)
 *
 * An order (`order`, created by the shop's server) is paid through the same steps: its public view
 * stands for a Standard link's, so its amount (or cart) is shown, never edited.
 *
 * A fundraiser (a donation link with a goal, or any donation link when the page asks for its donors)
 * keeps its progress live: while the page is visible the machine reads the link's public view again
 * every 3 s (the service's link cache answers it, dropped by every gift), and its latest public donors
 * whenever the count of donors moved: one poll per page, whatever the number of donors.
 */
import { PaylinkError } from '../../client/errors.js';
import type { ErrorCode } from '../../core/errors.js';
import { payFromWallet, type Wallet, type WalletFailure } from '../../internal/evm-wallet.js';
import type { CheckoutSession, PublicDonor } from '../../core/schemas.js';
import { checkDelivery } from '../../core/rules/customer.js';
import type { RuleKey, RuleParams } from '../../core/rules/types.js';
import { TERMINAL_STATUSES as TERMINAL } from '../../core/rules/session.js';
import { checkoutCalls } from './checkout-api.js';
import { CheckoutState } from './checkout-state.js';
import type { CheckoutHost, CheckoutView, FieldPath, MessageKey, Payable } from './checkout-types.js';

/** The redirect target of a paid session: only an absolute `http:`/`https:` URL, else ''. */
export function safeRedirectUrl(session: CheckoutSession): string {
  const action = session.postpayAction;
  try {
    const url = new URL(action!.redirectUrl);
    return action!.redirect && /^https?:$/.test(url.protocol) ? url.href : '';
  } catch {
    return '';
  }
}

/** The checkout's transitions over its state (./checkout-state.ts); see the module comment. */
export class CheckoutMachine extends CheckoutState {
  #generation = 0;
  /**
   * What is paid, as its calls name it: the slug, or `orders/<id>` (URL-encoded). Its pending session
   * is kept under `paylink:session:<path>`, so a link and an order never share one.
   */
  #path!: string;
  // Set by the first `load()`: only the screens it leads to offer a retry.
  #retryAction!: () => unknown;
  /** Aborted when the host leaves the page: no answer lands on a detached element. */
  #aborter = new AbortController();
  #stopWatching = () => {};
  #timer?: ReturnType<typeof setInterval>;
  /** The fundraiser's poll (see the module comment). */
  #poll?: ReturnType<typeof setInterval>;

  /** @param host What the machine asks of its page (events, storage, navigation, clipboard, renders). */
  constructor(readonly host: CheckoutHost) {
    super();
  }

  /** The checkout API on the current base and fetch; every call is aborted when the host leaves. */
  get #api() {
    return checkoutCalls(this.apiBase, this.fetch, this.#aborter.signal);
  }

  /** The host is on the page (again): requests may go out. */
  connect(): void {
    if (this.#aborter.signal.aborted) this.#aborter = new AbortController();
  }

  /** The host left the page: abort requests, stop following the session and the clock. */
  disconnect(): void {
    this.#aborter.abort();
    this.#stop();
    clearInterval(this.#poll);
  }

  /** Stops following the session and counting down. */
  #stop(): void {
    this.#stopWatching();
    clearInterval(this.#timer);
  }

  /**
   * Loads the link `slug`, or the order `order` (which wins), from the start, and resumes its pending
   * session, if one is stored.
   */
  async load(slug: string, order?: string): Promise<void> {
    const generation = ++this.#generation;
    const api = this.#api;
    const key = order || slug;
    const path = (this.#path = (order ? 'orders/' : '') + encodeURIComponent(key));
    this.#stop();
    clearInterval(this.#poll);
    this.link = this.session = this.publicDonors = undefined;
    this.#retryAction = () => this.load(slug, order);
    this.show('loading');
    try {
      if (!key) throw new PaylinkError('No slug', 404, 'not_found');
      const link = await api.link<Payable>(path);
      if (generation != this.#generation) return;
      this.link = link;
      if (!link.assets.some((asset) => asset.assetId == this.assetId && asset.blockchainId == this.network))
        ({ assetId: this.assetId = '', blockchainId: this.network = '' } = link.assets[0] ?? {});
      this.host.emit('paylink-ready', { link });
      // Counted once per page view: reloads send back the same visit id. (An order has no visits.)
      const visitKey = `paylink:visit:${slug}`;
      order ||
        api.visit(path, this.host.store('sessionStorage', visitKey)).then(
          (visit) => this.host.store('sessionStorage', visitKey, visit.visitId),
          () => {},
        );
      // A fundraiser's progress and donors: read now, then again every 3 s while the page is visible.
      if (link.linkType == 'Donation' && (link.goalAmount || this.donors != null)) {
        this.#refresh(generation);
        this.#poll = setInterval(() => globalThis.document?.hidden || this.#refresh(generation), 3000);
      }
      if (link.state != 'open') return this.show(link.state, this.t(link.state));
      // A pending payment survives a reload: pick up the session kept for this link or order.
      const id = this.host.store('localStorage', 'paylink:session:' + this.#path);
      const session = id && (await api.session(id).catch(() => undefined));
      if (generation != this.#generation) return;
      if (session && (session.slug ?? session.orderId) == key && session.status != 'expired') this.#follow(session);
      else this.show('amount');
    } catch (error) {
      if (generation == this.#generation) this.#fail(error);
    }
  }

  /**
   * Reads the fundraiser's public view again, and its public donors when the page shows them and
   * they are not read yet or their count moved; a failed read waits for the next.
   */
  async #refresh(generation: number): Promise<void> {
    const api = this.#api;
    const count = this.publicDonors && this.link?.donorCount;
    try {
      const link = await api.link<Payable>(this.#path);
      if (this.donors != null && link.donorCount !== count)
        this.publicDonors = (await api.link<{ items: PublicDonor[] }>(`${this.#path}/donors?limit=${+this.donors || 5}`)).items;
      if (generation == this.#generation) {
        this.link = link;
        this.#say();
      }
    } catch {}
  }

  /** Moves to `view`; `words` (if any) are said by the polite live region. */
  show(view: CheckoutView, words?: string): void {
    this.view = view;
    this.#say(words);
  }

  /** Says `words` in the live region (nothing for none), and renders. */
  #say(words?: string): void {
    if (words) this.announcement = words;
    this.host.requestUpdate();
  }

  /** Stores what the customer typed in the field `path` and clears its error. */
  edit(path: FieldPath, value: string): void {
    // Each field by its member (never a computed name: the bundles shorten these names).
    if (path == 'fiatAmount') this.amountText = value;
    else if (path == 'customer.address') this.address = value;
    else if (path == 'customer.phone') this.phone = value;
    else if (path == 'donorName') this.donorName = value;
    else this.message = value;
    this.errors = { ...this.errors, [path]: '' };
    this.#say();
  }

  /** Chooses the asset to pay in and its network: `USDT bsc` (or `USDT`, on the one network that carries it). */
  chooseAsset(pair: string): void {
    [this.assetId = '', this.network = ''] = pair.split(' ');
    this.#say();
  }

  /** The amount step is submitted: on to the details, or to the payment. */
  submitAmount(): void {
    if (!this.#invalid({ fiatAmount: this.amountProblem })) this.needsDetails ? this.show('details') : this.#start();
  }

  /** The details step is submitted: checked by the service's rule, then on to the payment. */
  submitDetails(): void {
    const errors: Record<string, string> = {};
    // Each refusal of the rule goes straight into its field's error, in the customer's language.
    const fail = (path: string, key: RuleKey, params?: RuleParams) => ((errors[path] = this.t(key as MessageKey, params)), null);
    checkDelivery({ address: this.address, phone: this.phone }, this.link!.prepayOptions, { fail });
    if (!this.#invalid(errors)) this.#start();
  }

  /**
   * Leaves the session (before anything was paid into it) to pay in another asset, or after an
   * expired quote: back to the step that ends with the asset choice, the amount and details kept.
   */
  changeAsset(): void {
    this.#stop();
    this.host.store('localStorage', 'paylink:session:' + this.#path, null);
    this.session = undefined;
    this.show(this.needsDetails ? 'details' : 'amount');
  }

  /** The button of the unhappy screens: retry what failed, or start again after an expired quote. */
  retry(): void {
    this.view == 'expired' ? this.changeAsset() : this.#retryAction();
  }

  /** Runs `task` with the buttons disabled. */
  async #busyWith(task: () => Promise<unknown>): Promise<void> {
    this.busy = true;
    this.#say();
    await task();
    this.busy = false;
    this.#say();
  }

  /** Sandbox only: the sandbox chain pays the session. */
  simulate(): Promise<void> {
    // On failure the live status still tells what happened.
    return this.#busyWith(() =>
      this.#api.simulate(this.session!.id).then(
        (next) => this.apply(next),
        () => {},
      ),
    );
  }

  /** Copies `text`, then says so on the button `key` and to screen readers. A refused clipboard claims nothing. */
  async copy(text: string, key: MessageKey): Promise<void> {
    await this.host.clipboard(text).then(
      () => {
        this.copied = key;
        this.#say(`${this.t('copied')}: ${this.t(key)}`);
      },
      () => {},
    );
  }

  /**
   * Pays the session from `wallet`: connect, network, balance, send. Each refusal gets its own
   * words in `walletError` and leaves the button to try again; a sent transfer is then followed by
   * the session's own status (confirming n/N, then paid).
   */
  payWithWallet(wallet: Wallet): Promise<void> {
    const { networkName: network, assetId } = this.session!;
    const transfer = this.transfer!;
    this.walletError = '';
    this.#say(this.t('confirmWallet'));
    return this.#busyWith(() =>
      payFromWallet(wallet.provider, transfer).then(
        (hash) => {
          this.sentHash = hash;
          this.#say(this.t('sent'));
        },
        (reason: WalletFailure) => {
          this.#say((this.walletError = this.t(reason, { network, chain: transfer.chainId, amount: this.l10n.crypto(this.due, assetId) })));
        },
      ),
    );
  }

  /** Takes in what the server says about the session: the only way to "done". */
  apply(session: CheckoutSession): void {
    const previous = this.session;
    const { status, id } = session;
    this.session = session;
    if (previous?.id == id && previous.status == status && previous.paidAmount == session.paidAmount) return this.#say();
    this.host.emit('paylink-session', { session });
    const pending = !TERMINAL.has(status);
    this.host.store('localStorage', 'paylink:session:' + this.#path, pending ? id : null);
    clearInterval(this.#timer);
    if (pending) {
      // The countdown: a render a second while the quote is held.
      this.#timer = setInterval(() => this.#say(), 1000);
      return this.show('pay', status == 'underpaid' ? this.t('underpaid') : status == 'confirming' ? this.progress : '');
    }
    this.#stop();
    // A payment the chain took back (`reversed`) is no payment: the customer may start again.
    if (status == 'expired' || status == 'reversed') return this.show('expired', this.t('expired'));
    const url = safeRedirectUrl(session);
    this.show('done', this.t('paid'));
    // The donor's own gift, on the fundraiser's progress at once.
    if (this.#poll) this.#refresh(this.#generation);
    // Cancelling the event keeps the customer here (e.g. to route with the merchant's own router).
    if (this.host.emit('paylink-success', { session }, true) && url) this.host.navigate((this.redirectTo = url));
  }

  /** Shows `session` and, while it can still change, follows its status live. */
  #follow(session: CheckoutSession): void {
    this.apply(session);
    this.#stopWatching();
    if (!TERMINAL.has(session.status)) this.#stopWatching = this.#api.watch(session.id, (next) => this.apply(next));
  }

  /** Starts the payment session in the chosen asset, with the amount and details given. */
  #start(): Promise<void> {
    const { link, clientReference, metadata, address, phone, donorName, message, showPublicly } = this;
    const { linkType } = link!;
    const donation = linkType == 'Donation';
    this.walletError = this.sentHash = '';
    return this.#busyWith(() =>
      this.#api
        .start(
          this.#path,
          // Undefined fields stay out of the JSON; a detail the link does not ask for goes empty, which the service ignores.
          {
            assetId: this.assetId,
            blockchainId: this.network || undefined,
            fiatCurrency: this.currency,
            fiatAmount: donation ? this.price : undefined,
            customer: this.needsDetails ? { address: address.trim(), phone: phone.trim() } : undefined,
            reference: clientReference,
            metadata,
            // What a donor gives with the gift (a Standard link takes none of it).
            ...(donation && { donorName: donorName.trim() || undefined, message: message.trim() || undefined, showPublicly }),
          },
        )
        .then(
          (session) => this.#follow(session),
          (error: PaylinkError) => {
            // The server's field errors go beside their fields, on the step that has them.
            const fields = Object.fromEntries(error.errors?.map((e) => [e.path, e.message]) ?? []);
            const step =
              fields.fiatAmount || fields.donorName || fields.message
                ? 'amount'
                : Object.keys(fields).some((path) => path.startsWith('customer.'))
                  ? 'details'
                  : '';
            if (step) {
              this.host.emit('paylink-error', { code: 'validation_failed', message: error.message, error });
              this.show(step);
              this.#invalid(fields);
            } else this.#fail(error, () => this.show(this.needsDetails ? 'details' : 'amount'));
          },
        ),
    );
  }

  /** Shows the screen for `error` and tells the page. */
  #fail(error: unknown, retry: () => unknown = this.#retryAction): void {
    if ((error as Error).name == 'AbortError') return;
    const problem = error instanceof PaylinkError ? error : new PaylinkError(String(error), 0, 'network_error');
    this.#retryAction = retry;
    this.host.emit('paylink-error', { code: problem.code, message: problem.message, error: problem });
    // No fresh exchange rate (503 `rate_unavailable`): its own words, and "Try again" goes back to the asset choice.
    const view =
      problem.status == 404
        ? 'notFound'
        : problem.status == 409
          ? 'paid'
          : problem.status == 410
            ? 'closed'
            : problem.code == ('link_inactive' satisfies ErrorCode)
              ? 'inactive'
              : problem.code == ('rate_unavailable' satisfies ErrorCode)
                ? 'rates'
                : 'error';
    this.show(view, this.t(view));
  }

  /** Puts field errors beside their fields (the host focuses the first); true when there is one. */
  #invalid(errors: Partial<Record<FieldPath, string>>): boolean {
    this.errors = errors;
    this.focusInvalid = Object.values(errors).some(Boolean);
    this.#say();
    return this.focusInvalid;
  }
}
