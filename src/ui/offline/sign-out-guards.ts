/**
 * Signing out of a shared handheld: the next user must find nothing of the previous one. Screens that hold
 * data not yet sent register a guard; sign-out asks them first, and says why it should wait.
 */

/** Answers null when nothing waits, or the Italian reason to wait ("3 arrivi non ancora inviati"). */
type SignOutGuard = () => Promise<string | null>;

const guards = new Set<SignOutGuard>();

/** Registers a guard for as long as the screen is mounted: call the returned function on unmount. */
export function registerSignOutGuard(guard: SignOutGuard): () => void {
  guards.add(guard);
  return () => {
    guards.delete(guard);
  };
}

/** The guards' reasons to wait, joined; null when none has one. A guard that fails counts as a reason. */
export async function reasonsToWait(): Promise<string | null> {
  const reasons = await Promise.all(
    [...guards].map((g) => g().catch(() => "Non è stato possibile verificare se restano dati da inviare.")),
  );
  const given = reasons.filter((r): r is string => Boolean(r));
  return given.length > 0 ? given.join(" ") : null;
}
