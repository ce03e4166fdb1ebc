import { hash, verify, type Algorithm } from "@node-rs/argon2";

/**
 * Passwords are stored as argon2id hashes (PHC string: the parameters travel with the hash, so they
 * can be raised later without invalidating existing passwords). Parameters: OWASP's first choice
 * for argon2id, 19 MiB, 2 passes, 1 lane: ~0.1 s on this hardware.
 */
// Algorithm is a const enum the isolated-modules build cannot read: 2 is Argon2id.
const ARGON2ID = 2 as Algorithm.Argon2id;
const PARAMS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

export function hashPassword(password: string): Promise<string> {
  return hash(password, PARAMS);
}

/** A hash of nothing anyone knows: an unknown username costs the same time as a wrong password. */
let decoy: Promise<string> | undefined;

export async function verifyPassword(passwordHash: string | null, password: string): Promise<boolean> {
  if (passwordHash === null) {
    decoy ??= hashPassword(`decoy-${Math.random()}`);
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  try {
    return await verify(passwordHash, password);
  } catch {
    // A malformed stored hash is a refusal, never a way in.
    return false;
  }
}

/** The problem with a new password, in Italian, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `la password deve avere almeno ${MIN_PASSWORD_LENGTH} caratteri`;
  if (password.length > MAX_PASSWORD_LENGTH) return `la password può avere al massimo ${MAX_PASSWORD_LENGTH} caratteri`;
  return null;
}
