import type { Actor } from "./actor";

/** A signed-in UI session as a request sees it: shared by the sessions service and the cache it fills. */
export interface ResolvedSession {
  id: string;
  csrf: string;
  actor: Extract<Actor, { kind: "utente" }>;
  scadeIl: Date;
}
