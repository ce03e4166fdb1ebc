import type { PDFDocument, PDFFont, PDFPage } from "pdf-lib";
import { type Label, type LabelSymbol, type SheetSize, bracketed } from "./label-model";
import { PROFILE } from "./zpl";

/**
 * PDF labels, for any printer through the browser's print dialog: one page per label (and per copy) at
 * the label's size, or for row labels an A4 sheet of ten 105 × 59.4 mm cells. Symbols are drawn by
 * bwip-js as images; the human-readable text is ours, below the bars (an EAN's digits too: clear of
 * the bars, not over its guard bars).
 */

const MM = 72 / 25.4;
const PAGE: Record<Exclude<SheetSize, "a4">, { w: number; h: number }> = {
  "100x50": { w: 100, h: 50 },
  "100x150": { w: 100, h: 150 },
  "50x25": { w: 50, h: 25 },
};
const A4 = { w: 210, h: 297, cols: 2, rows: 5 };

/**
 * pdf-lib and bwip-js are loaded at the first PDF, not at start: imported at start, they keep their resident memory
 * for the process's life in a service that may never render one (ZPL printers, the API alone). Node caches the
 * modules: the later PDFs find them loaded.
 */
const libraries = async () => {
  const [pdf, bwip] = await Promise.all([import("pdf-lib"), import("bwip-js/node")]);
  return { ...pdf, bwipjs: bwip.default };
};
type Libraries = Awaited<ReturnType<typeof libraries>>;

/** The bwip-js options of a symbol: also what the decode test renders. */
export function bwipOptions(s: LabelSymbol): { bcid: string; text: string } {
  if (s.kind === "gs1-128") return { bcid: "gs1-128", text: bracketed(s.elements) };
  if (s.kind === "ean") return { bcid: s.digits.length === 8 ? "ean8" : s.digits.length === 12 ? "upca" : "ean13", text: s.digits };
  return { bcid: "code128", text: s.text };
}

export const symbolHri = (s: LabelSymbol) => (s.kind === "gs1-128" ? bracketed(s.elements) : s.kind === "ean" ? s.digits : s.text);

/** What the standard fonts can draw (WinAnsi): anything else becomes '?', rather than failing the label. */
function drawable(font: PDFFont, text: string): string {
  const set = new Set(font.getCharacterSet());
  return [...text].map((c) => (set.has(c.codePointAt(0)!) ? c : "?")).join("");
}

function fitted(font: PDFFont, text: string, size: number, width: number): string {
  let t = drawable(font, text);
  if (font.widthOfTextAtSize(t, size) <= width) return t;
  while (t.length > 1 && font.widthOfTextAtSize(`${t}…`, size) > width) t = t.slice(0, -1);
  return `${t}…`;
}

interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
}

/** Draws a label into the box (x, y from the page's bottom-left, in mm), with the proportions of `profile`. */
async function drawLabel(
  { bwipjs }: Libraries,
  doc: PDFDocument,
  page: PDFPage,
  fonts: Fonts,
  label: Label,
  box: { x: number; y: number; w: number; h: number },
) {
  const profile = box.h >= 100 ? PROFILE["100x150"] : box.w >= 80 ? PROFILE["100x50"] : PROFILE["50x25"];
  const m = profile.margin;
  const width = (box.w - 2 * m) * MM;
  let top = box.y + box.h - m;
  for (const line of label.lines.slice(0, profile.lines)) {
    const sizeMm = line.big ? profile.big : profile.small;
    const font = line.big ? fonts.bold : fonts.regular;
    const size = sizeMm * MM * 0.95;
    top -= sizeMm;
    page.drawText(fitted(font, line.text, size, width), { x: (box.x + m) * MM, y: top * MM, size, font });
    top -= 0.8;
  }
  const symbols = label.symbols.slice(0, profile.symbols);
  // Words and bars apart: a scanner's line across the first bars must not touch the text above.
  top -= 1.2;
  const each = (top - (box.y + m)) / Math.max(1, symbols.length);
  const hri = profile.small * 0.8;
  for (const [i, s] of symbols.entries()) {
    const slotTop = top - i * each;
    const barH = Math.max(4, each - hri - 1.5);
    const png = await bwipjs.toBuffer({ ...bwipOptions(s), scale: 3, height: 10, includetext: false, paddingwidth: 0 });
    const image = await doc.embedPng(png);
    const modules = image.width / 3;
    // At most 0.5 mm a module (GS1's logistic X-dimension is 0.495–0.94 mm), with ten modules of quiet zone
    // either side (the label's white margin counts).
    const w = Math.min(box.w - 2 * m, modules * Math.min(0.5, box.w / (modules + 20)));
    const x = box.x + (box.w - w) / 2;
    page.drawImage(image, { x: x * MM, y: (slotTop - barH) * MM, width: w * MM, height: barH * MM });
    const text = fitted(fonts.regular, symbolHri(s), hri * MM, width);
    const tw = fonts.regular.widthOfTextAtSize(text, hri * MM);
    page.drawText(text, {
      x: (box.x + box.w / 2) * MM - tw / 2,
      y: (slotTop - barH - hri - 0.3) * MM,
      size: hri * MM,
      font: fonts.regular,
    });
  }
}

export async function renderPdf(labels: Label[], size: SheetSize, copies: number, title: string): Promise<Uint8Array> {
  const libs = await libraries();
  const { PDFDocument, StandardFonts, rgb } = libs;
  const doc = await PDFDocument.create();
  doc.setTitle(title);
  doc.setCreator("Banchina");
  const fonts = { regular: await doc.embedFont(StandardFonts.Helvetica), bold: await doc.embedFont(StandardFonts.HelveticaBold) };
  const all = labels.flatMap((l) => Array.from({ length: copies }, () => l));
  if (size === "a4") {
    const cellW = A4.w / A4.cols;
    const cellH = A4.h / A4.rows;
    const perPage = A4.cols * A4.rows;
    for (let start = 0; start < all.length; start += perPage) {
      const page = doc.addPage([A4.w * MM, A4.h * MM]);
      for (const [k, label] of all.slice(start, start + perPage).entries()) {
        const col = k % A4.cols;
        const row = Math.floor(k / A4.cols);
        const x = col * cellW;
        const y = A4.h - (row + 1) * cellH;
        page.drawRectangle({
          x: x * MM,
          y: y * MM,
          width: cellW * MM,
          height: cellH * MM,
          borderColor: rgb(0.85, 0.85, 0.85),
          borderWidth: 0.3,
        });
        await drawLabel(libs, doc, page, fonts, label, { x: x + 2.5, y: y + 4.7, w: 100, h: 50 });
      }
    }
  } else {
    const d = PAGE[size];
    for (const label of all) {
      const page = doc.addPage([d.w * MM, d.h * MM]);
      await drawLabel(libs, doc, page, fonts, label, { x: 0, y: 0, w: d.w, h: d.h });
    }
  }
  return doc.save();
}
