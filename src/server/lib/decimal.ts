import Decimal from "decimal.js";

Decimal.set({ precision: 40, rounding: Decimal.ROUND_HALF_UP, toExpNeg: -40, toExpPos: 40 });

export { Decimal };

/** Anything the database or a caller hands us as a decimal: Prisma's Decimal, a numeric string, a number. */
export type DecimalLike = Decimal | string | number | { toString(): string };

/** Canonical form of the contract: `.` separator, no exponent, no trailing zeros, `-` for negatives. */
export function canonical(value: DecimalLike): string {
  const d = value instanceof Decimal ? value : new Decimal(value.toString());
  if (d.isZero()) return "0";
  return d.toFixed();
}

export function canonicalOrNull(value: DecimalLike | null | undefined): string | null {
  return value === null || value === undefined ? null : canonical(value);
}

export const MAX_QUANTITY = new Decimal("999999999999.999");
export const MAX_PRICE = new Decimal("99999999999999.9999");

/**
 * A request quantity is a JSON number. The shortest decimal that round-trips the double is what the
 * client wrote (0.1 stays 0.1); more than 3 decimals is refused, never rounded.
 * Returns the exact decimal string, or null when not acceptable.
 */
export function quantityFromNumber(n: number): string | null {
  if (!Number.isFinite(n) || n <= 0) return null;
  const d = new Decimal(String(n));
  if (d.decimalPlaces() > 3 || d.gt(MAX_QUANTITY)) return null;
  return d.toFixed();
}

/** Like quantityFromNumber but zero allowed (a counted quantity). */
export function countFromNumber(n: number): string | null {
  if (!Number.isFinite(n) || n < 0) return null;
  if (n === 0) return "0";
  return quantityFromNumber(n);
}

const PLAIN_DECIMAL = /^\d{1,14}(\.\d{1,4})?$/;

/** `prezzo` in a request: a plain decimal string, at most 4 decimals, never negative. */
export function priceFromString(s: string): string | null {
  if (!PLAIN_DECIMAL.test(s)) return null;
  return new Decimal(s).toFixed();
}
