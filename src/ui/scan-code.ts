/**
 * Whether a text typed into a field of the receiving screen (the lot) is rather a code the scanner read
 * from a product or a label: a GS1 string, an EAN/UPC/GTIN with its check digit, an order-row label
 * `R<riga>`. The screen then asks the service before taking it for a lot: a lot may look like one.
 */
export function looksLikeScanCode(text: string): boolean {
  const t = text.trim();
  if (/^\(01\)\d{14}/.test(t) || /^\][CdQe]\d/.test(t)) return true;
  if (/^R\d{1,12}$/i.test(t)) return true;
  return /^(\d{8}|\d{12,14})$/.test(t) && gtinCheckOk(t);
}

/** GS1 check digit: from the right, excluding it, digits weigh 3, 1, 3, 1, …; the sum becomes a multiple of 10. */
function gtinCheckOk(code: string): boolean {
  let sum = 0;
  for (let i = code.length - 2, weight = 3; i >= 0; i--, weight = 4 - weight) sum += Number(code[i]) * weight;
  return (10 - (sum % 10)) % 10 === Number(code.at(-1));
}
