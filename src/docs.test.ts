import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import GithubSlugger from "github-slugger";
import { Lexer, type Token } from "marked";
import { parseSync } from "oxc-parser";
import { afterAll, describe, expect, test } from "vitest";
import { historyReport, readHistory } from "../bench/history";
import { openApiDocument } from "./server/trpc/openapi";

/**
 * The documents a reader opens must not send them nowhere: every relative link and image of README.md,
 * ARCHITECTURE.md and docs/**\/*.md resolves to a file (and a heading's anchor, inside a Markdown file), and
 * every path of the OpenAPI document is named in docs/api.md, so the contract written for people and the one
 * the service serves cannot drift apart. And the code's comments say why, not which ticket asked: a comment
 * that cites an issue number points at a tracker the reader may not have and goes stale.
 */

const root = path.resolve(import.meta.dirname, "..");

function markdownFiles(dir: string): string[] {
  const top = ["README.md", "ARCHITECTURE.md"].map((f) => path.join(dir, f)).filter((f) => fs.existsSync(f));
  const docs = path.join(dir, "docs");
  const nested = fs.existsSync(docs)
    ? fs
        .readdirSync(docs, { recursive: true, encoding: "utf8" })
        .filter((f) => f.endsWith(".md"))
        .map((f) => path.join(docs, f))
    : [];
  return [...top, ...nested.sort()];
}

/** Every token of a Markdown tree, inline ones and table cells included. */
function* walk(tokens: Token[]): Generator<Token> {
  for (const t of tokens) {
    yield t;
    const any = t as Token & { tokens?: Token[]; items?: Token[]; header?: { tokens: Token[] }[]; rows?: { tokens: Token[] }[][] };
    if (any.tokens) yield* walk(any.tokens);
    if (any.items) yield* walk(any.items);
    if (any.header) for (const cell of any.header) yield* walk(cell.tokens);
    if (any.rows) for (const row of any.rows) for (const cell of row) yield* walk(cell.tokens);
  }
}

/** A heading's text as GitHub renders it (no Markdown syntax), from which its anchor is made. */
function plainText(tokens: Token[] | undefined, fallback: string): string {
  if (!tokens || tokens.length === 0) return fallback;
  return tokens
    .map((t) => {
      const inner = (t as { tokens?: Token[] }).tokens;
      if (inner && inner.length > 0) return plainText(inner, "");
      return "text" in t && typeof t.text === "string" ? t.text : "";
    })
    .join("");
}

interface Parsed {
  links: string[];
  anchors: Set<string>;
}

const parsed = new Map<string, Parsed>();

function parse(file: string): Parsed {
  const known = parsed.get(file);
  if (known) return known;
  const tokens = new Lexer().lex(fs.readFileSync(file, "utf8"));
  const slugger = new GithubSlugger();
  const links: string[] = [];
  const anchors = new Set<string>();
  for (const t of walk(tokens)) {
    if (t.type === "link" || t.type === "image") links.push((t as { href: string }).href);
    if (t.type === "heading") anchors.add(slugger.slug(plainText((t as { tokens?: Token[] }).tokens, (t as { text: string }).text)));
  }
  const result = { links, anchors };
  parsed.set(file, result);
  return result;
}

/** Each link of these files that does not resolve, as "file: link (why)". */
function brokenLinks(files: string[], base: string): string[] {
  const problems: string[] = [];
  for (const file of files) {
    for (const href of parse(file).links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // https:, mailto:: not ours to check
      const [target = "", anchor] = href.split("#", 2);
      const resolved = target === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
      const where = `${path.relative(base, file)}: ${href}`;
      if (!fs.existsSync(resolved)) {
        problems.push(`${where} (nessun file ${path.relative(base, resolved)})`);
        continue;
      }
      if (anchor && resolved.endsWith(".md") && !parse(resolved).anchors.has(decodeURIComponent(anchor)))
        problems.push(`${where} (nessun titolo con l'ancora #${anchor} in ${path.relative(base, resolved)})`);
    }
  }
  return problems;
}

/** The paths of the OpenAPI document that the contract's text does not name. */
function pathsMissingFrom(text: string, paths: string[]): string[] {
  return paths.filter((p) => !text.includes(p));
}

/** The source files whose comments are checked: the code of src, e2e, bench and scripts, generated code left out. */
const COMMENTED_DIRS = ["src", "e2e", "bench", "scripts"];
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const NOT_OURS = new Set(["node_modules", "generated", ".next"]);

function sourceFiles(base: string): string[] {
  const files: string[] = [];
  const visit = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      if (NOT_OURS.has(d.name)) continue;
      const full = path.join(dir, d.name);
      if (d.isDirectory()) visit(full);
      else if (SOURCE.test(d.name)) files.push(full);
    }
  };
  for (const dir of COMMENTED_DIRS) if (fs.existsSync(path.join(base, dir))) visit(path.join(base, dir));
  return files.sort();
}

/** A ticket named by its number: "issue" or "issues" (any case), an optional "#", digits. */
const ISSUE_CITATION = /\bissues? #?\d+/i;

/** Each comment of these files that cites an issue number, as "file:line: the comment's line". */
function issueCitations(files: string[], base: string): string[] {
  const found: string[] = [];
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8");
    // The parser tells comments from strings, template literals, regular expressions and JSX text.
    for (const c of parseSync(file, text).comments) {
      const lines = c.value.split("\n");
      lines.forEach((line, i) => {
        if (!ISSUE_CITATION.test(line)) return;
        const at = text.slice(0, c.start).split("\n").length + i;
        found.push(`${path.relative(base, file)}:${at}: ${line.trim()}`);
      });
    }
  }
  return found;
}

describe("the documents", () => {
  test("every relative link and image of README.md, ARCHITECTURE.md and docs/ resolves, anchors included", () => {
    const files = markdownFiles(root);
    expect(files.map((f) => path.relative(root, f))).toEqual(
      expect.arrayContaining(["README.md", "ARCHITECTURE.md", "docs/api.md", "docs/operator-guide.md"]),
    );
    expect(brokenLinks(files, root)).toEqual([]);
  });

  test("every path of the OpenAPI document is named in docs/api.md", () => {
    const paths = Object.keys(openApiDocument().paths ?? {});
    expect(paths.length).toBeGreaterThan(30);
    expect(pathsMissingFrom(fs.readFileSync(path.join(root, "docs/api.md"), "utf8"), paths)).toEqual([]);
  });

  test("no comment in src, e2e, bench or scripts cites an issue number", () => {
    const files = sourceFiles(root);
    expect(files.length).toBeGreaterThan(300);
    const found = issueCitations(files, root);
    expect(found).toEqual([]);
  });

  test("ARCHITECTURE.md's module table names every module of src/server/modules", () => {
    const text = fs.readFileSync(path.join(root, "ARCHITECTURE.md"), "utf8");
    const modules = fs.readdirSync(path.join(root, "src/server/modules"), { withFileTypes: true }).filter((d) => d.isDirectory());
    expect(modules.map((d) => d.name).filter((m) => !text.includes(`| \`${m}\` |`))).toEqual([]);
  });
});

describe("the latest figures docs/performance.md points to (npm run -s bench:report)", () => {
  test("every scenario of the newest run at scale 1 has its row, from that run", () => {
    const lines = readHistory(path.join(root, "bench/results/history.jsonl"));
    const newest = lines.filter((l) => l.banco === undefined && l.scala === 1).at(-1)!;
    const report = historyReport(lines, 1);
    for (const id of Object.keys(newest.scenari).filter((i) => !i.startsWith("tetto-node:")))
      expect(report).toMatch(new RegExp(`^\\| \`${id}\` \\|.*\\| ${newest.quando.slice(0, 16).replace("T", " ")} \\|$`, "m"));
  });

  test("a newer run of a few scenarios replaces only their rows; other scales and the UI bench stay apart", () => {
    const side = (api: number) => ({ api, pavimento: 2 * api, rapporto: 0.5, p50: 1, p99: 2 });
    const report = historyReport(
      [
        { quando: "2026-01-01T10:00:00.000Z", scala: 1, scenari: { "post-movimenti": side(100), "scan-movimenti": side(9000) } },
        { quando: "2026-01-02T10:00:00.000Z", scala: 1, scenari: { "post-movimenti": side(200) } },
        { quando: "2026-01-03T10:00:00.000Z", scala: 5, scenari: { "post-movimenti": side(300) } },
      ],
      1,
    );
    expect(report).toMatch(/^\| `post-movimenti` \| requests\/s \| 200 \| 400 \|.*\| 2026-01-02 10:00 \|$/m);
    expect(report).toMatch(/^\| `scan-movimenti` \| rows\/s \| 9,000 \| 18,000 \|.*\| 2026-01-01 10:00 \|$/m);
    expect(report).not.toContain("300");
    expect(report).not.toContain("receiving screen");
  });
});

describe("the checks themselves", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-docs-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("a missing file, a missing image and a missing anchor are each reported; good links are not", () => {
    fs.mkdirSync(path.join(dir, "docs/images"), { recursive: true });
    fs.writeFileSync(path.join(dir, "docs/images/a.png"), "");
    fs.writeFileSync(path.join(dir, "docs/api.md"), "# API\n\n## 12. Shipping notices, pallets\n\n### `POST /colli/{sscc}/ricevi`\n");
    fs.writeFileSync(
      path.join(dir, "README.md"),
      [
        "# Prova",
        "[ok](docs/api.md#12-shipping-notices-pallets) [ok too](docs/api.md#post-collissccricevi) ![ok](docs/images/a.png)",
        "[here](#prova) [web](https://example.com/x) | [in a table](docs/api.md) |",
        "[gone](docs/gone.md) ![no image](docs/images/b.png) [bad anchor](docs/api.md#13-labels)",
        "`[not a link](nowhere.md)`",
      ].join("\n"),
    );
    const problems = brokenLinks(markdownFiles(dir), dir);
    expect(problems).toEqual([
      "README.md: docs/gone.md (nessun file docs/gone.md)",
      "README.md: docs/images/b.png (nessun file docs/images/b.png)",
      "README.md: docs/api.md#13-labels (nessun titolo con l'ancora #13-labels in docs/api.md)",
    ]);
  });

  test("a comment citing an issue is reported, with its line; strings, JSX text and other words are not", () => {
    const dir2 = path.join(dir, "cites");
    fs.mkdirSync(path.join(dir2, "src/generated"), { recursive: true });
    fs.mkdirSync(path.join(dir2, "bench"), { recursive: true });
    fs.writeFileSync(
      path.join(dir2, "src/a.tsx"),
      [
        "/**",
        " * Why this is so (the reason stays).",
        " * As Issue 27 asked.",
        " */",
        'const s = "issue 5"; // issues 13 and 27',
        "const t = `// issue 9`; const re = /issue 4/;",
        "/* see issue #24 */ const j = <a>// issue 8</a>;",
        "// A tissue 3 thick, an issuer 4, React's error #418, the issue's own example.",
      ].join("\n"),
    );
    fs.writeFileSync(path.join(dir2, "src/generated/g.ts"), "// issue 1\n");
    fs.writeFileSync(path.join(dir2, "bench/b.mjs"), "export const x = 1; // (issue 12)\n");
    const files = sourceFiles(dir2);
    expect(files.map((f) => path.relative(dir2, f))).toEqual(["bench/b.mjs", "src/a.tsx"]);
    expect(issueCitations(files, dir2)).toEqual([
      "bench/b.mjs:1: (issue 12)",
      "src/a.tsx:3: * As Issue 27 asked.",
      "src/a.tsx:5: issues 13 and 27",
      "src/a.tsx:7: see issue #24",
    ]);
  });

  test("a path of the document that the text does not name is reported", () => {
    const text = "`GET /movimenti` and `POST /arrivi/{id}/annulla`";
    expect(pathsMissingFrom(text, ["/movimenti", "/arrivi/{id}/annulla", "/stampe/{id}"])).toEqual(["/stampe/{id}"]);
  });
});
