/**
 * The order of codes (lots, locations) by Unicode code point: PostgreSQL's `COLLATE "C"` on a UTF-8
 * database, which compares the bytes, and UTF-8's byte order is code point order. Every lock order that
 * sorts codes in JS uses this, so that it agrees with the statements that sort them in SQL: JS `<` compares
 * UTF-16 code units, which put a character above U+FFFF (a surrogate pair, 0xD800-0xDFFF) before one of
 * U+E000-U+FFFF, where code points (and the database) put it after.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    // At the first unit that differs, moving the surrogates above U+E000-U+FFFF turns unit order into code
    // point order: two surrogates, or two units outside them, keep their order.
    if (x !== y) return inCodePointOrder(x) - inCodePointOrder(y);
  }
  return a.length - b.length;
}

const inCodePointOrder = (unit: number) => (unit < 0xd800 ? unit : unit < 0xe000 ? unit + 0x2000 : unit - 0x800);
