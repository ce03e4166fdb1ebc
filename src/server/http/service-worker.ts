import fs from "node:fs";
import type http from "node:http";

/**
 * /sw.js: the operator UI's service worker (src/server/service-worker-build.ts), at the root so that its
 * scope covers every screen. `no-cache`: the browser asks for it again at every check for a new version,
 * so a new build reaches the handhelds at their next navigation.
 */

export function isServiceWorkerPath(url: string | undefined): boolean {
  return (url ?? "").split("?")[0] === "/sw.js";
}

export function serveServiceWorker(req: http.IncomingMessage, res: http.ServerResponse, file: string): Promise<void> {
  return fs.promises.readFile(file).then((body) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD" }).end();
      return;
    }
    res.writeHead(200, {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "no-cache",
      "Content-Length": body.length,
    });
    res.end(req.method === "HEAD" ? undefined : body);
  });
}
