import "server-only";
import { handleRestRequest } from "@/server/http/rest-handler";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

// Every method is exported so that Next never answers by itself (its 405 carries no contract body):
// 404 versus 405, HEAD and OPTIONS are the REST handler's decision.
export {
  handleRestRequest as GET,
  handleRestRequest as POST,
  handleRestRequest as PUT,
  handleRestRequest as PATCH,
  handleRestRequest as DELETE,
  handleRestRequest as HEAD,
  handleRestRequest as OPTIONS,
};
