import { redirect } from "next/navigation";
import { currentSession } from "@/ui/server/session";

export const dynamic = "force-dynamic";

/** The receiving screen is everyone's home: operators live there, managers start there. */
export default async function HomePage() {
  const session = await currentSession();
  redirect(session ? "/ricevimento" : "/accesso");
}
