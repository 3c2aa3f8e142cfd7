/** `paylink/admin` in runtimes without a DOM (see `./checkout.ts`): no element code loads there. */

/** Stands in for `<paylink-admin>`'s class where there is no DOM: nothing to render, nothing defined. */
export class PaylinkAdmin {}
