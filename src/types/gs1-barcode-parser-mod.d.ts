/** The part of gs1-barcode-parser-mod's API that src/lib/barcode.ts uses (the package ships no types). */
declare module "gs1-barcode-parser-mod" {
  interface ParsedElement {
    ai: string;
    dataTitle: string;
    /** A string, a number (measures) or a Date in the runtime's local time (dates). */
    data: unknown;
    /** The element's digits as scanned (dates: YYMMDD). */
    raw?: string;
  }
  interface ParsedBarcode {
    codeName: string;
    parsedCodeItems: ParsedElement[];
  }
  /** Throws (a string) when the code is not a GS1 element string. */
  export function parseBarcode(barcode: string): ParsedBarcode;
}
