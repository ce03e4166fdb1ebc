import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { precacheList } from "./service-worker-build";

function buildDir(files: Record<string, string>): { root: string; dir: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "banchina-sw-"));
  for (const [name, body] of Object.entries({ BUILD_ID: "build-1\n", ...files })) {
    const file = path.join(root, ".next-x", name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, body);
  }
  return { root, dir: ".next-x" };
}

describe("precacheList", () => {
  it("holds the offline shell under the build id and every static file but source maps, by content", () => {
    const { root, dir } = buildDir({
      "static/chunks/a.js": "a",
      "static/chunks/a.js.map": "{}",
      "static/chunks/b.css": "b",
      "static/build-1/_buildManifest.js": "m",
      "server/app/ricevimento.html": "<html>not for the browser</html>",
    });
    const list = precacheList(root, dir);
    expect(list.map((e) => e.url)).toEqual([
      "/offline",
      "/_next/static/build-1/_buildManifest.js",
      "/_next/static/chunks/a.js",
      "/_next/static/chunks/b.css",
    ]);
    expect(list[0]!.revision).toBe("build-1");
    // Same content, same revision: a new build re-downloads only what changed.
    const again = buildDir({ "static/chunks/a.js": "a" });
    expect(precacheList(again.root, again.dir).find((e) => e.url.endsWith("a.js"))?.revision).toBe(
      list.find((e) => e.url.endsWith("a.js"))?.revision,
    );
  });
});
