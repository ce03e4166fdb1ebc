import path from "node:path";
import { defaultNextDir, nextBuild, staleReason } from "/work/wt/integ/src/server/next-build";
const ROOT = "/work/wt/integ";
const dir = defaultNextDir();
const reason = staleReason(ROOT, dir);
console.log("dir", dir, "reason", reason);
if (reason) await nextBuild(ROOT, dir, { inherit: true });
console.log("built");
