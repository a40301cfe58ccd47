import type {
  CustomerEventReceived,
  CustomerUpserted,
  EventTypes,
  OrderUpserted,
  PersonalData,
  ZeroPartySubmitted,
} from '@holdfast/contracts';

/** The records of holdfast.commerce that carry personal data (and `personal`). */
export type PersonalEventName =
  'OrderUpserted' | 'CustomerUpserted' | 'CustomerEventReceived' | 'ZeroPartySubmitted';

/** One of them, tagged with its name. */
export type PersonalEvent = {
  [K in PersonalEventName]: { readonly type: K; readonly value: EventTypes[K] };
}[PersonalEventName];

/** A record's identifiers in clear, as normalised by the gateway (lower-cased email, E.164 phone). */
export interface ClearIdentifiers {
  readonly externalId: string | null;
  readonly email: string | null;
  readonly phone: string | null;
}

/**
 * The personal values of a record, in the order of its type's layout (`PERSONAL_LAYOUTS`): what
 * `personal.ciphertext` seals (envelope version 2, a JSON array).
 */
export type PersonalFields = readonly unknown[];

/**
 * The names of each record type's personal fields, in the order their values are sealed. Append
 * only: a name removed or moved would misread the records already written (that needs a new
 * envelope version).
 */
export const PERSONAL_LAYOUTS: Readonly<Record<PersonalEventName, readonly string[]>> = Object.freeze({
  OrderUpserted: ['email', 'phone', 'customer_name', 'shipping_city', 'shipping_state', 'shipping_zip'],
  CustomerUpserted: ['email', 'phone', 'name', 'address'],
  CustomerEventReceived: ['email', 'phone', 'name', 'address'],
  ZeroPartySubmitted: ['email', 'attributes_json'],
});

/**
 * The identifiers a record names, in clear (from the clear fields: call it before `withoutPersonal`,
 * or on a record written before encryption). External ids stay in clear in the log: they are the
 * merchant's pseudonymous reference (docs/privacy.md).
 */
export function identifiersOf(e: PersonalEvent): ClearIdentifiers {
  switch (e.type) {
    case 'OrderUpserted':
      return {
        externalId: e.value.order.customer_id,
        email: e.value.order.email,
        phone: e.value.order.phone,
      };
    case 'CustomerUpserted':
      return {
        externalId: e.value.customer.external_id,
        email: e.value.customer.email,
        phone: e.value.customer.phone,
      };
    case 'CustomerEventReceived':
      return {
        externalId: e.value.event.external_id,
        email: e.value.event.email,
        phone: e.value.event.phone,
      };
    case 'ZeroPartySubmitted':
      return { externalId: e.value.external_customer_id, email: e.value.email, phone: null };
  }
}

const hasAny = (fields: PersonalFields) => fields.some((v) => v !== null && v !== undefined);

/**
 * Splits a record into its personal fields and the record with those fields null (what the log
 * carries in clear). `fields` is null when the record carries no personal value at all.
 */
export function withoutPersonal<E extends PersonalEvent>(
  e: E,
): { readonly value: E['value']; readonly fields: PersonalFields | null } {
  let value: PersonalEvent['value'];
  let fields: PersonalFields;
  switch (e.type) {
    case 'OrderUpserted': {
      const v = e.value;
      const o = v.order;
      fields = [o.email, o.phone, o.customer_name, o.shipping_city, o.shipping_state, o.shipping_zip];
      value = {
        ...v,
        order: {
          ...o,
          email: null,
          phone: null,
          customer_name: null,
          shipping_city: null,
          shipping_state: null,
          shipping_zip: null,
        },
      } satisfies OrderUpserted;
      break;
    }
    case 'CustomerUpserted': {
      const v = e.value;
      const c = v.customer;
      fields = [c.email, c.phone, c.name, c.address];
      value = {
        ...v,
        customer: { ...c, email: null, phone: null, name: null, address: null },
      } satisfies CustomerUpserted;
      break;
    }
    case 'CustomerEventReceived': {
      const v = e.value;
      const c = v.event;
      fields = [c.email, c.phone, c.name, c.address];
      value = {
        ...v,
        event: { ...c, email: null, phone: null, name: null, address: null },
      } satisfies CustomerEventReceived;
      break;
    }
    case 'ZeroPartySubmitted': {
      const v = e.value;
      // The free-form attributes may carry anything a quiz asked: sealed with the email.
      fields = [v.email, v.attributes_json];
      value = { ...v, email: null, attributes_json: null } satisfies ZeroPartySubmitted;
      break;
    }
  }
  return { value: value, fields: hasAny(fields) ? fields : null };
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
// Opened JSON of our own sealing: the shapes are the record's own (an address object or null).
const obj = <T>(v: unknown): T | null => (v !== null && typeof v === 'object' ? (v as T) : null);

/**
 * The record with its personal fields put back from `fields` (opened from `personal`); with `fields`
 * null (a shredded subject) the record stays as the log has it, its personal fields null.
 */
export function withPersonal<E extends PersonalEvent>(e: E, fields: PersonalFields | null): E['value'] {
  return restore(e, fields);
}

function restore(e: PersonalEvent, fields: PersonalFields | null): PersonalEvent['value'] {
  if (!fields) return e.value;
  switch (e.type) {
    case 'OrderUpserted': {
      const v = e.value;
      return {
        ...v,
        order: {
          ...v.order,
          email: str(fields[0]),
          phone: str(fields[1]),
          customer_name: str(fields[2]),
          shipping_city: str(fields[3]),
          shipping_state: str(fields[4]),
          shipping_zip: str(fields[5]),
        },
      } satisfies OrderUpserted;
    }
    case 'CustomerUpserted': {
      const v = e.value;
      return {
        ...v,
        customer: {
          ...v.customer,
          email: str(fields[0]),
          phone: str(fields[1]),
          name: str(fields[2]),
          address: obj(fields[3]),
        },
      } satisfies CustomerUpserted;
    }
    case 'CustomerEventReceived': {
      const v = e.value;
      return {
        ...v,
        event: {
          ...v.event,
          email: str(fields[0]),
          phone: str(fields[1]),
          name: str(fields[2]),
          address: obj(fields[3]),
        },
      } satisfies CustomerEventReceived;
    }
    case 'ZeroPartySubmitted': {
      const v = e.value;
      return {
        ...v,
        email: str(fields[0]),
        attributes_json: str(fields[1]),
      } satisfies ZeroPartySubmitted;
    }
  }
}

export type { PersonalData };
