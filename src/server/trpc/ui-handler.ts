import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { responseHeaders, toDomainError } from "./errors";
import { createContextInner, type Context } from "./context";
import { appRouter } from "./router";

/**
 * The operator UI's endpoint (/api/trpc): the same procedures as /api/v1, authenticated by the
 * session cookie (or a Bearer key). Headers a procedure sets (the session cookie, Retry-After) and
 * the contract's status of a refusal reach the response.
 */
export function handleTrpcRequest(req: Request): Promise<Response> {
  let ctx: Context | undefined;
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => (ctx = createContextInner({ channel: "trpc", headers: req.headers })),
    responseMeta: ({ errors, info }) => {
      const headers: Record<string, string> = { ...ctx?.response.headers };
      const single = errors.length === 1 && info?.isBatchCall !== true;
      if (!single) return { headers };
      const domain = toDomainError(errors[0], { isQuery: info?.type === "query" });
      if (domain) Object.assign(headers, responseHeaders(domain));
      return { headers, status: domain?.status ?? 500 };
    },
  });
}
