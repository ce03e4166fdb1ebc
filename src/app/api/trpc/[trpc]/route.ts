import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { createContextInner } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/router";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** The operator UI's endpoint. Sign-in for the UI arrives with the UI; until then procedures ask for a key. */
function handle(req: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => createContextInner({ channel: "trpc", headers: req.headers }),
  });
}

export { handle as GET, handle as POST };
