import { z } from "zod";

const intFromEnv = (fallback: number, min: number, max: number) =>
  z.string().regex(/^\d+$/, "deve essere un numero intero").transform(Number).pipe(z.number().int().min(min).max(max)).default(fallback);

const configSchema = z.object({
  PORT: intFromEnv(3000, 0, 65535),
  HOST: z.string().default("0.0.0.0"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "deve iniziare con postgres:// o postgresql://")
    .optional(),
  // PostgreSQL itself when DATABASE_URL names a pooler in transaction mode (PgBouncer): migrations, LISTEN and
  // the webhook workers' locks need a session of their own. Unset: DATABASE_URL (runtime.ts).
  DATABASE_DIRECT_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "deve iniziare con postgres:// o postgresql://")
    .optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DB_POOL_SIZE: intFromEnv(10, 1, 200),
  SERVICE_TIME_ZONE: z
    .string()
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat("it-IT", { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, "fuso orario IANA sconosciuto")
    .default("Europe/Rome"),
  // Unset: the demo is loaded into an empty database, except with NODE_ENV=production (see main.ts).
  DEMO_DATA: z.enum(["true", "false"]).optional(),
  IDEMPOTENCY_RETENTION_HOURS: intFromEnv(24, 1, 24 * 365),
  RATE_LIMIT_PER_SECOND: intFromEnv(50, 1, 1_000_000),
  RATE_LIMIT_BURST: intFromEnv(200, 1, 10_000_000),
  // How long an instance may reuse an API key's or a session's authentication (auth-cache.ts); changes
  // reach it at once by notification, this is the backstop. 0: no cache, every request asks the database.
  AUTH_CACHE_TTL_SECONDS: intFromEnv(30, 0, 300),
  BODY_LIMIT_BYTES: intFromEnv(5 * 1024 * 1024, 1024, 100 * 1024 * 1024),
  // Behind a reverse proxy: take the client's address from X-Forwarded-For (sign-in limits per address).
  TRUST_PROXY: z.enum(["true", "false"]).default("false"),
  // Webhooks (docs/api.md section 10). An on-premises installation that delivers to its ERP on the LAN sets
  // WEBHOOK_ALLOW_PRIVATE_NETWORKS=true; the rest tune delivery (defaults: the contract's 10 s and 30 hours).
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(["true", "false"]).default("false"),
  WEBHOOK_WORKERS: intFromEnv(4, 0, 64),
  WEBHOOK_TIMEOUT_MS: intFromEnv(10_000, 100, 60_000),
  WEBHOOK_BACKOFF_BASE_MS: intFromEnv(5_000, 10, 3_600_000),
  WEBHOOK_BACKOFF_MAX_MS: intFromEnv(4 * 3_600_000, 10, 24 * 3_600_000),
  WEBHOOK_RETRY_WINDOW_S: intFromEnv(30 * 3600, 1, 30 * 24 * 3600),
  // Requests in flight at once to one endpoint whose delivery is `parallela` (docs/api.md section 10, "Throughput").
  WEBHOOK_PARALLELISM: intFromEnv(8, 1, 64),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
});

export type Config = z.infer<typeof configSchema>;

let cached: Config | undefined;

/** Reads and validates the environment once; a bad value stops the start with a clear message. */
export function getConfig(env: NodeJS.ProcessEnv = process.env): Config {
  if (cached && env === process.env) return cached;
  const raw = Object.fromEntries(Object.keys(configSchema.shape).map((k) => [k, env[k] === "" ? undefined : env[k]]));
  const parsed = configSchema.safeParse(raw);
  if (parsed.success && parsed.data.DATABASE_DIRECT_URL && !parsed.data.DATABASE_URL)
    throw new Error("Configurazione non valida:\n  DATABASE_DIRECT_URL: vale solo insieme a DATABASE_URL (il pooler)");
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Configurazione non valida:\n${lines.join("\n")}`);
  }
  if (env === process.env) cached = parsed.data;
  return parsed.data;
}
