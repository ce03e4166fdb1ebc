import { hash, verify, type Algorithm } from "@node-rs/argon2";

/**
 * Passwords are stored as argon2id hashes (PHC string: the parameters travel with the hash, so they
 * can be raised later without invalidating existing passwords). Parameters: OWASP's first choice
 * for argon2id, 19 MiB, 2 passes, 1 lane: slow enough to
 * hamper guessing, quick enough for a sign-in.
 */
// Algorithm is a const enum the isolated-modules build cannot read: 2 is Argon2id.
const ARGON2ID = 2 as Algorithm.Argon2id;
const PARAMS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export const MIN_PASSWORD_LENGTH = 12;
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

/**
 * The most common passwords, from the list zxcvbn-ts ships (`@zxcvbn-ts/language-common`,
 * `passwords-common`: about 49,000 entries from leaked password corpora, most frequent first),
 * compared in lower case. Loaded on first use: only setting a password needs it.
 */
let common: Set<string> | undefined;
async function commonPasswords(): Promise<Set<string>> {
  if (!common) {
    const { dictionary } = await import("@zxcvbn-ts/language-common");
    common = new Set(dictionary["passwords-common"].map((p) => p.toLowerCase()));
  }
  return common;
}

/**
 * The problem with a new password, in Italian, or null when it is acceptable (NIST SP 800-63B: a
 * length, and no password that attackers try first; no composition rules). The username is compared
 * in lower case, also reversed or with a few characters around it.
 */
export async function passwordProblem(password: string, username?: string): Promise<string | null> {
  if (password.length < MIN_PASSWORD_LENGTH) {
    return `la password deve avere almeno ${MIN_PASSWORD_LENGTH} caratteri (ne ha ${password.length}): una frase di alcune parole è facile da ricordare`;
  }
  if (password.length > MAX_PASSWORD_LENGTH) return `la password può avere al massimo ${MAX_PASSWORD_LENGTH} caratteri`;
  const lower = password.toLowerCase();
  const name = username?.trim().toLowerCase();
  if (name && (lower.includes(name) || lower.includes([...name].reverse().join(""))) && lower.length - name.length < 6) {
    return "la password non può essere il nome utente, né somigliargli: sceglierne una che non lo contenga";
  }
  if ((await commonPasswords()).has(lower)) {
    return "la password è tra le più usate, ed è la prima che un attaccante prova: sceglierne una meno prevedibile";
  }
  if (/^(.)\1+$/.test(password)) return "la password è un solo carattere ripetuto: sceglierne una meno prevedibile";
  return null;
}
