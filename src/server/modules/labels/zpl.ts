import { type Label, type LabelSymbol, type Size, VARIABLE_AIS, bracketed } from "./label-model";

/**
 * ZPL for Zebra and compatible thermal printers at 203 dpi (8 dots/mm). Every piece of text that comes
 * from outside (a description from the ERP, a scanned lot, a location code) goes through `^FH`: the
 * characters that ZPL reads as commands (`^`, `~`) and the escape character itself are written as hex,
 * so no field can carry a printer command. Code 128 symbols are drawn by the printer (`^BC`), with the
 * subsets and FNC1 spelled out with ZPL's invocation codes (`>;` start C, `>:` start B, `>5`/`>6` switch,
 * `>8` FNC1): the encoding itself is the printer's.
 */

const DOTS_PER_MM = 8;
const dims: Record<Size, { w: number; h: number }> = {
  "100x50": { w: 100, h: 50 },
  "100x150": { w: 100, h: 150 },
  "50x25": { w: 50, h: 25 },
};

/** How much of a label each size shows: a 50x25 label keeps its first line and its first symbol. */
export const PROFILE: Record<Size, { lines: number; symbols: number; big: number; small: number; margin: number }> = {
  "100x50": { lines: 3, symbols: 2, big: 5, small: 3, margin: 2.5 },
  "100x150": { lines: 6, symbols: 3, big: 8, small: 4, margin: 4 },
  "50x25": { lines: 1, symbols: 1, big: 3, small: 2, margin: 1.5 },
};

/** Field data for `^FH\`: bytes outside printable ASCII, `^`, `~` and `\` as `\XX` (UTF-8, with `^CI28`). */
export function zplText(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    const safe = byte >= 0x20 && byte <= 0x7e && byte !== 0x5e && byte !== 0x7e && byte !== 0x5c;
    out += safe ? String.fromCharCode(byte) : `\\${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** One Code 128 symbol character of subset B, as ZPL field data (`>` is an invocation prefix: `><`). */
const subsetB = (ch: string) => (ch === ">" ? "><" : zplText(ch));

interface Code128 {
  data: string;
  /** Symbol characters between start and check: what decides the symbol's width. */
  chars: number;
}

/**
 * The field data of a Code 128 symbol in ZPL's mode N: digit runs in subset C (pairs), the rest in B,
 * `>8` where FNC1 goes. `parts` are strings, and `null` for FNC1.
 */
function code128(parts: (string | null)[], fnc1First: boolean): Code128 {
  const flat: (string | null)[] = fnc1First ? [null] : [];
  for (const p of parts)
    if (p === null) flat.push(null);
    else flat.push(...[...p]);
  let subset: "B" | "C" | undefined;
  let data = "";
  let chars = 0;
  const digitsFrom = (i: number) => {
    let n = 0;
    while (i + n < flat.length && typeof flat[i + n] === "string" && /\d/.test(flat[i + n] as string)) n++;
    return n;
  };
  const to = (s: "B" | "C") => {
    if (subset === s) return;
    data += subset === undefined ? (s === "C" ? ">;" : ">:") : s === "C" ? ">5" : ">6";
    if (subset !== undefined) chars++;
    subset = s;
  };
  // The start character follows the first run.
  const firstDigits = digitsFrom(fnc1First ? 1 : 0);
  to(firstDigits >= 2 ? "C" : "B");
  for (let i = 0; i < flat.length; ) {
    const ch = flat[i];
    if (ch === null) {
      data += ">8";
      chars++;
      i++;
      continue;
    }
    const n = digitsFrom(i);
    if (n >= 4 || (n >= 2 && subset === "C")) {
      to("C");
      const even = n - (n % 2);
      data += flat.slice(i, i + even).join("");
      chars += even / 2;
      i += even;
      continue;
    }
    to("B");
    data += subsetB(ch as string);
    chars++;
    i++;
  }
  return { data, chars };
}

/** GS1-128: FNC1 first, then each element; FNC1 ends a variable-length element that another follows. */
export function gs1Code128(elements: { ai: string; data: string }[]): Code128 {
  const parts: (string | null)[] = [];
  elements.forEach((e, i) => {
    parts.push(e.ai + e.data);
    if (VARIABLE_AIS.has(e.ai) && i < elements.length - 1) parts.push(null);
  });
  return code128(parts, true);
}

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

function textField(x: number, y: number, heightDots: number, widthDots: number, text: string): string {
  const maxChars = Math.max(1, Math.floor(widthDots / (heightDots * 0.55)));
  const shown = [...text].length > maxChars ? `${[...text].slice(0, maxChars - 1).join("")}…` : text;
  return `^FO${x},${y}^A0N,${heightDots},${heightDots}^FB${widthDots},1,0,L^FH\\^FD${zplText(shown)}^FS`;
}

function symbolFields(s: LabelSymbol, box: Box, hriDots: number): string {
  const barH = Math.max(16, box.h - hriDots - 4);
  let modules: number;
  let command: string;
  let data: string;
  let hri: string;
  if (s.kind === "ean") {
    const [cmd, keep] = s.digits.length === 8 ? ["^B8N", 7] : s.digits.length === 12 ? ["^BUN", 11] : ["^BEN", 12];
    // The printer adds the check digit; the digits are written below, clear of the bars.
    modules = s.digits.length === 8 ? 67 : 95;
    command = `${cmd},${barH},N,N`;
    data = s.digits.slice(0, keep);
    hri = s.digits;
  } else {
    const c = s.kind === "gs1-128" ? gs1Code128(s.elements) : code128([s.text], false);
    modules = 11 * (c.chars + 2) + 13;
    command = `^BCN,${barH},N,N,N`;
    data = c.data;
    hri = s.kind === "gs1-128" ? bracketed(s.elements) : s.text;
  }
  // 10 modules of quiet zone either side; the widest module that fits, never under one dot.
  const module = Math.max(1, Math.min(4, Math.floor(box.w / (modules + 20))));
  const x = box.x + Math.max(0, Math.floor((box.w - module * modules) / 2));
  return [
    `^FO${x},${box.y}^BY${module},3,${barH}${command}^FH\\^FD${data}^FS`,
    textField(box.x, box.y + barH + 4, hriDots, box.w, hri),
  ].join("\n");
}

/** One label as one ZPL format (`^XA` … `^XZ`), printed `copies` times (`^PQ`). */
export function labelZpl(label: Label, size: Size, copies: number): string {
  const d = dims[size];
  const p = PROFILE[size];
  const W = d.w * DOTS_PER_MM;
  const H = d.h * DOTS_PER_MM;
  const m = Math.round(p.margin * DOTS_PER_MM);
  const big = p.big * DOTS_PER_MM;
  const small = p.small * DOTS_PER_MM;
  const out = ["^XA", "^CI28", `^PW${W}`, `^LL${H}`, "^LH0,0"];
  let y = m;
  for (const line of label.lines.slice(0, p.lines)) {
    const h = line.big ? big : small;
    out.push(textField(m, y, h, W - 2 * m, line.text));
    y += h + 4;
  }
  const symbols = label.symbols.slice(0, p.symbols);
  const each = Math.floor((H - m - y) / Math.max(1, symbols.length));
  symbols.forEach((s, i) => {
    out.push(symbolFields(s, { x: m, y: y + i * each, w: W - 2 * m, h: each - 6 }, Math.round(small * 0.8)));
  });
  out.push(`^PQ${copies},0,1,Y`, "^XZ");
  return out.join("\n");
}

export function renderZpl(labels: Label[], size: Size, copies: number): string {
  return `${labels.map((l) => labelZpl(l, size, copies)).join("\n")}\n`;
}
