import { gtinCheckDigit } from "./gtin";

/**
 * The Serial Shipping Container Code (GS1 AI 00): 18 digits, the last a GS1 check digit computed as a
 * GTIN's (weights 3, 1, 3, … from the right). Shared by the notices' upsert and the scans of a pallet.
 */

export function isValidSscc(code: string): boolean {
  return /^\d{18}$/.test(code) && gtinCheckDigit(code.slice(0, -1)) === Number(code.at(-1));
}

/**
 * The SSCC a scan reads, or null: 18 bare digits, or a GS1 string whose (only) element is AI (00), bracketed
 * or not, with or without the symbology identifier (]C1, ]d2) a scanner may send first.
 */
export function readSscc(raw: string): string | null {
  const text = raw
    .replace(/[\r\n]+$/g, "")
    .trim()
    .replace(/^\][Cd][12]/, "");
  const m = /^(?:\(00\)|00(?=\d{18}$))?(\d{18})$/.exec(text);
  return m && isValidSscc(m[1]!) ? m[1]! : null;
}
