/**
 * A link's payments as counted in the transaction of the transfer that settles (or reverses) one of its
 * sessions: `paymentCount`, and on a fundraiser the running totals its public view shows (`raised`,
 * `donorCount`, per price currency in `link_fundraising`), so that no view sums the link's sessions.
 * A gift changes what every customer's page shows: the link caches of every instance drop their copy
 * (`link.changed`), so open pages see it at their next poll.
 */
import type { Queryable } from '../../db/index.js';
import { recordEvent } from '../events/index.js';
import { addToFundraising, countPaymentRow, uncountPaymentRow } from './repository.js';

/**
 * What a settled session counts toward its link's fundraiser: its amount in the link's price currency
 * as quoted (`raise_amount`, `raise_currency` of the session), or nulls when it counts toward none (a
 * Standard link's session).
 */
export interface Gift {
  amount: string | null;
  currency: string | null;
}

/** Counts one payment of link `linkId` (and its gift, if any), in the transaction of the transfer that settled its session. */
export async function countPayment(tx: Queryable, linkId: string, gift?: Gift): Promise<void> {
  const slug = await countPaymentRow(tx, linkId);
  await changeTotals(tx, linkId, slug, gift, 1);
}

/** Takes back a payment (and its gift) the link counted, when the chain took that payment back (a reorg before it was final). */
export async function uncountPayment(tx: Queryable, linkId: string, gift?: Gift): Promise<void> {
  const slug = await uncountPaymentRow(tx, linkId);
  await changeTotals(tx, linkId, slug, gift, -1);
}

async function changeTotals(tx: Queryable, linkId: string, slug: string | undefined, gift: Gift | undefined, sign: 1 | -1): Promise<void> {
  if (slug === undefined || !gift?.amount || !gift.currency) return;
  await addToFundraising(tx, linkId, { amount: gift.amount, currency: gift.currency }, sign);
  await recordEvent(tx, { type: 'link.changed', slug });
}
