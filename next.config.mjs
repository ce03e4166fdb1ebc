/** @type {import("next").NextConfig} */
const nextConfig = {
  poweredByHeader: false,
  // A separate build directory lets a benchmark or a reliability run build and serve its own copy
  // while another build is going on in the same tree.
  distDir: process.env.BANCHINA_NEXT_DIR || ".next",
  // `npm run typecheck` (run by CI) is the type check; a type error in a test or a script must not
  // stop `npm start` from building the service.
  typescript: { ignoreBuildErrors: true },
  // Next would answer `/api/v1/clienti/` with a 308 of its own; the REST handler answers every path
  // under /api/v1 itself (an unknown one with the contract's 404). Pages are served either way.
  skipTrailingSlashRedirect: true,
  // Loaded by Node at run time instead of bundled, like the custom server loads them: one copy of
  // the driver and of the Prisma runtime in the process. Next lists pg and @prisma/client already,
  // not the adapter.
  // Same for the native argon2 binding and the barcode renderer.
  serverExternalPackages: ["pg", "@prisma/client", "@prisma/adapter-pg", "@node-rs/argon2", "bwip-js"],
  // forbidden() in a page: a screen above the user's role answers 403 with (app)/forbidden.tsx.
  experimental: { authInterrupts: true },
};

export default nextConfig;
