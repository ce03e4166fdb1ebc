import { defineConfig } from "prisma/config";

// Only `prisma generate` is used: migrations are SQL files applied by src/server/db/migrate.ts.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
