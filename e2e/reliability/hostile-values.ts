import fc from "fast-check";

// The hostile values a request carries anywhere (hostile-endpoints.ts says what the generators are).

export const SQL_METACHARACTERS = [
  "'",
  "''",
  "' OR '1'='1",
  "1' OR 1=1 --",
  "'; DROP TABLE movimenti; --",
  '"; DELETE FROM giacenze; --',
  "1; SELECT pg_sleep(5); --",
  "$1",
  "$$",
  "\\",
  "\\'",
  "%",
  "_%",
  "E'\\x00'",
  "/*",
  "*/",
  ";",
  "--",
  "\u0000",
  "a\u0000b",
  "NULL",
  "null",
  "undefined",
  "__proto__",
  "constructor",
  "[object Object]",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, meant as plain text.
  "${7*7}",
  "{{7*7}}",
  "<script>alert(1)</script>",
  "../../../etc/passwd",
  "%00",
  "%27",
  "%ZZ",
];
export const NUMERIC_STRINGS = [
  "NaN",
  "Infinity",
  "-Infinity",
  "1e308",
  "1e309",
  "-0",
  "0",
  "-1",
  "9007199254740993",
  "2147483648",
  "0x10",
  "0b1",
  "1_000",
  " 1",
  "1 ",
  "+1",
  "1.",
  ".5",
  "1e-7",
  "12,5",
  "١٢",
  "１２",
  "00000000001",
  "1".repeat(40),
  "0.0001",
  "1.23456",
];
export const DATE_STRINGS = [
  "2026-02-30",
  "2026-13-01",
  "0000-00-00",
  "9999-12-31",
  "2026-1-1",
  "2026-01-01T00:00:00Z",
  "20260101",
  "2026/01/01",
  "-2026-01-01",
  "+012026-01-01",
  "2024-02-29",
  "2026-11-22",
];
export const UNICODE = [
  "è",
  "ñ",
  "😀",
  "👨‍👩‍👧",
  "\u202e",
  "\ufeff",
  "\u200b",
  "ﬃ",
  "İ",
  "Ω",
  "\ud800",
  "\udfff",
  "a\u0301",
  "日本語",
  "\u00a0",
  "\r\n",
  "\t",
  "\u2028",
  "\u{10ffff}",
];
export const BARCODES = [
  "R1",
  "R0",
  "R-1",
  "R99999999999",
  "(01)08001234567897(10)L1(17)271231",
  "\u001d0108001234567897",
  "]C1010800123456789710L1",
  "(01)(10)(17)",
  "(17)991399",
  "8001234567897",
];

/** Raw JSON number literals JSON.stringify cannot produce: spliced into the text after serialisation. */
export const RAW_NUMBERS = [
  "-0",
  "1e999",
  "-1e999",
  "1E400",
  "9007199254740993",
  "-9007199254740993",
  "123456789012345678901234567890",
  "0.1e1",
  "1.0",
  "1e-400",
  "0.00000000000000000000001",
  "2.0000000000000001",
  "4.0000",
  "1e2",
  "-0.0",
];

export const NESTING_DEPTHS = [10, 1000, 20_000, 100_000];

const RAW = "\u0001RAW:";
const rawToken = (t: string) => `${RAW}${t}\u0001`;

/** JSON text with the raw tokens spliced in. */
export function serialise(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001RAW:([^"\\]*)\\u0001"/g, "$1");
}

const nested = (depth: number, kind: "obj" | "arr") =>
  kind === "obj" ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` : `${"[".repeat(depth)}1${"]".repeat(depth)}`;

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SQL_METACHARACTERS, ...NUMERIC_STRINGS, ...DATE_STRINGS, ...UNICODE, ...BARCODES) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 80 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "x".repeat(64),
      "x".repeat(65),
      "x".repeat(200),
      "x".repeat(201),
      "x".repeat(256),
      "é".repeat(10_000),
      "",
      " ",
      "   ",
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...SQL_METACHARACTERS, ...UNICODE, ""),
        fc.constantFrom(...NUMERIC_STRINGS, ...BARCODES, "A", ""),
        fc.constantFrom(...SQL_METACHARACTERS, ...UNICODE, ""),
      )
      .map(([a, b, c]) => `${a}${b}${c}`),
  },
);

const numberValue: fc.Arbitrary<number> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      1e308,
      -1e308,
      2 ** 53 + 1,
      2 ** 53,
      -(2 ** 53),
      0,
      1,
      -1,
      0.1,
      0.0001,
      0.001,
      1.0005,
      2.5,
      10,
      2_147_483_647,
      2_147_483_648,
      4_294_967_296,
      1e21,
      5e-324,
      -5,
      10_001,
      99_999_999,
    ),
  },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 2, arbitrary: fc.integer({ min: -3, max: 50 }) },
);

/** A value that may appear anywhere in a body: scalars, raw literals, nesting (shallow or very deep). */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString,
    numberValue,
    fc.constantFrom(...RAW_NUMBERS).map(rawToken),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(...NESTING_DEPTHS).chain((d) => fc.constantFrom("obj" as const, "arr" as const).map((k) => rawToken(nested(d, k)))),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(
      fc.oneof(fc.constantFrom("a", "righe", "__proto__", "constructor", "codice", "'; --"), fc.string({ maxLength: 6 })),
      tie("value"),
      { maxKeys: 3 },
    ),
  ),
})).value;
