import {
  mergeCustomer as mergeWith,
  newCustomer as newWith,
  type CustomerPatch,
  type CustomerState,
} from '@holdfast/domain';
import { instantKey } from './instant-key.js';

// The customer merge is a rule of the spec and lives in @holdfast/domain; the projector binds it to
// its timestamp parser, which reports an unparseable timestamp as poison. A chunk passes its own
// memoised one (InstantKeys: it compares the same few received_at texts over and over).
export type { CustomerPatch, CustomerState, StateAddress } from '@holdfast/domain';

/** A customer created by a record received at `receivedAt` (see the domain's newCustomer). */
export const newCustomer = (accountId: string, customerId: string, receivedAt: string, keyOf = instantKey) =>
  newWith(accountId, customerId, receivedAt, keyOf);

/** Applies one record's patch with the customer merge rules (see the domain's mergeCustomer). */
export const mergeCustomer = (c: CustomerState, p: CustomerPatch, receivedAt: string, keyOf = instantKey) =>
  mergeWith(c, p, receivedAt, keyOf);
