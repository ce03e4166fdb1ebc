import "server-only";
import { handleTrpcRequest } from "@/server/trpc/ui-handler";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export { handleTrpcRequest as GET, handleTrpcRequest as POST };
