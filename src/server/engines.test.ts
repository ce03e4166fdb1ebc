import { existsSync, readFileSync } from "node:fs";
import semver from "semver";
import { expect, test } from "vitest";

/**
 * The README promises Node 20.19+, 22.12+ or 24 and package.json's `engines` says the same: every package
 * `npm install` puts in place must accept every one of those versions, or npm warns "Unsupported engine" and
 * the package may not run. Read from package-lock.json, so a dependency bumped past the promise fails here
 * (`prisma`'s own `@prisma/dev` is pinned by `overrides` for this: README "Development").
 */

const root = new URL("../../", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL("package-lock.json", root), "utf8")) as {
  packages: Record<string, { version?: string; engines?: Record<string, string> | string[]; optional?: boolean; os?: string[] }>;
};

test("package.json promises what the README says", () => {
  expect(manifest.engines.node).toBe("^20.19 || ^22.12 || >=24");
  const readme = readFileSync(new URL("README.md", root), "utf8");
  expect(readme).toContain("Node 20.19+,\n22.12+ or 24");
});

test("every installed package's engines accept every Node version package.json promises", () => {
  const promised = manifest.engines.node;
  const refused: string[] = [];
  let checked = 0;
  for (const [where, entry] of Object.entries(lock.packages)) {
    if (where === "" || !entry.engines || Array.isArray(entry.engines)) continue;
    // An optional package of another platform (sharp's Windows build, a WebAssembly binding) is not
    // installed here, and npm judges its engines only where it is.
    if (entry.optional && !existsSync(new URL(`${where}/package.json`, root))) continue;
    const node = entry.engines.node;
    if (node === undefined) continue;
    checked++;
    if (!semver.validRange(node) || !semver.subset(promised, node)) refused.push(`${where}@${entry.version}: node ${node}`);
  }
  expect(checked).toBeGreaterThan(20);
  expect(refused).toEqual([]);
});
