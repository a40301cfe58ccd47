import {
  mergeCustomer as mergeWith,
  newCustomer as newWith,
  type CustomerPatch,
  type CustomerState,
} from '@holdfast/domain';
import { instantKey } from './instant-key.js';

// The customer merge is a rule of the spec and lives in @holdfast/domain; the projector binds it to
// its memoised timestamp parser (a chunk compares the same few received_at texts over and over).
export type { CustomerPatch, CustomerState, StateAddress } from '@holdfast/domain';

/** A customer created by a record received at `receivedAt` (see the domain's newCustomer). */
export function newCustomer(accountId: string, customerId: string, receivedAt: string): CustomerState {
  return newWith(accountId, customerId, receivedAt, instantKey);
}

/** Applies one record's patch with the customer merge rules (see the domain's mergeCustomer). */
export function mergeCustomer(c: CustomerState, p: CustomerPatch, receivedAt: string): boolean {
  return mergeWith(c, p, receivedAt, instantKey);
}
