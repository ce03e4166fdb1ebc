import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { prepareZXingModule, readBarcodes } from "zxing-wasm/reader";

/**
 * A real decoder for the label tests: ZXing-C++ (zxing-wasm), its WebAssembly loaded from the package
 * (never from a CDN), reading PNG pages that poppler's pdftoppm rasterised from our PDF. What it reads
 * is what a scanner would type: the symbology identifier (`]C1` for GS1-128) and GS (0x1D) for FNC1.
 */

let ready: Promise<unknown> | undefined;
function prepare() {
  const require = createRequire(import.meta.url);
  const wasm = readFileSync(require.resolve("zxing-wasm/reader/zxing_reader.wasm"));
  ready ??= prepareZXingModule({
    overrides: { wasmBinary: wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer },
    fireImmediately: true,
  });
  return ready;
}

/** Every barcode in one PNG, as a scanner types it (GS1: `]C1` and GS separators). */
export async function decodePng(png: Uint8Array): Promise<string[]> {
  await prepare();
  const found = await readBarcodes(new Blob([png as BlobPart]), { textMode: "Plain", maxNumberOfSymbols: 32, tryHarder: true });
  return found.map((b) => (b.symbologyIdentifier === "]C1" ? `]C1${b.text}` : b.text));
}

/** Rasterises every page of a PDF (300 dpi) and decodes each; one list of reads per page. */
export async function decodePdf(pdf: Uint8Array, keepAs?: string): Promise<string[][]> {
  const dir = mkdtempSync(path.join(tmpdir(), "etichette-"));
  try {
    writeFileSync(path.join(dir, "in.pdf"), pdf);
    execFileSync("pdftoppm", ["-r", "300", "-png", path.join(dir, "in.pdf"), path.join(dir, "p")]);
    const pages = readdirSync(dir)
      .filter((f) => f.endsWith(".png"))
      .sort();
    const out: string[][] = [];
    for (const [i, f] of pages.entries()) {
      const png = readFileSync(path.join(dir, f));
      if (keepAs) writeFileSync(`${keepAs}${pages.length > 1 ? `-${i + 1}` : ""}.png`, png);
      out.push((await decodePng(png)).sort());
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
