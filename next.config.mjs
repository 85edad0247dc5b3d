/** @type {import('next').NextConfig} */
const nextConfig = {
  // The /v1 API and the DID documents are served by our own HTTP pipeline in src/server/main.ts
  // (it needs the socket address for allowlists); Next serves the console and the pages.
  poweredByHeader: false,
  // `npm test` type-checks the whole project with tsc first; the build need not repeat it.
  typescript: { ignoreBuildErrors: true },
  serverExternalPackages: ["@electric-sql/pglite", "pino", "prom-client", "pg"],
};
export default nextConfig;
