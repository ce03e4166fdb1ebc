import "server-only";
import { exportAvailabilityCsv } from "@/server/http/availability-export";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export { exportAvailabilityCsv as GET };
