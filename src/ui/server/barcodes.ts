import "server-only";
import bwipjs from "bwip-js/node";
import { isValidGtin } from "@/lib/gtin";

/**
 * Barcodes as SVG, rendered on the server (no script needed to print, crisp at any printer resolution).
 * The row label is Code 128 carrying `R<riga>`, what the receiving screen reads back.
 */
export function code128Svg(text: string): string {
  return bwipjs.toSVG({ bcid: "code128", text, scale: 3, height: 10, includetext: true, textxalign: "center", textsize: 12 });
}

/** The article's own barcode: EAN-13/EAN-8/UPC-A when its check digit holds, else Code 128 of the text. */
export function eanSvg(ean: string): string {
  const bcid = isValidGtin(ean) ? ({ 13: "ean13", 8: "ean8", 12: "upca" } as Record<number, string>)[ean.length] : undefined;
  return bwipjs.toSVG({ bcid: bcid ?? "code128", text: ean, scale: 2, height: 12, includetext: true, textxalign: "center" });
}
