/**
 * What money in (../money-in/) settles and finalizes sessions with, under the locks it takes: the
 * sessions room's SQL and its announcements, and nothing that reaches back into money in. Money in
 * imports this file rather than the room's index, whose routes and simulator settle through money in:
 * the two rooms depend on each other only through this one-way door.
 */
export { announceSession } from './records.js';
export {
  closeSessionsOfOrder,
  closeTransfer,
  findSessionByAddress,
  findTransferSession,
  insertTransfer,
  lockUnfinalTransfer,
  markSessionFinal,
  reverseInSession,
  sessionOfTransfer,
  updateSettlement,
  type UnfinalTransfer,
  lockSessionForSettlement,
  orderOfSession,
} from './repository.js';
