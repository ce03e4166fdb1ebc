/**
 * GS1 check digit of GTIN-8 (EAN-8), GTIN-12 (UPC-A), GTIN-13 (EAN-13) and GTIN-14: from the right,
 * excluding the check digit itself, digits are weighted 3, 1, 3, 1, …; the check digit brings the sum
 * to a multiple of 10. It catches every single-digit misread, so a mistyped EAN never reaches the
 * catalogue where a scanner would later fail to find it.
 */

const GTIN = /^(\d{8}|\d{12}|\d{13}|\d{14})$/;

/** The check digit for the digits before it (the code without its last digit). */
export function gtinCheckDigit(body: string): number {
  let sum = 0;
  for (let i = body.length - 1, weight = 3; i >= 0; i--, weight = 4 - weight) sum += Number(body[i]) * weight;
  return (10 - (sum % 10)) % 10;
}

export function isValidGtin(code: string): boolean {
  return GTIN.test(code) && gtinCheckDigit(code.slice(0, -1)) === Number(code.at(-1));
}

/** An SSCC (a pallet's serial shipping container code): 18 digits whose last is the same GS1 check digit. */
export function isValidSscc(code: string): boolean {
  return /^\d{18}$/.test(code) && gtinCheckDigit(code.slice(0, -1)) === Number(code.at(-1));
}
