/** @type {import('next').NextConfig} */
const nextConfig = {
  // The /v1 API and the DID documents are served by our own HTTP pipeline in src/server/main.ts
  // (it needs the socket address for allowlists); Next serves the console and the pages.
  poweredByHeader: false,
  // `npm test` type-checks the whole project with tsc first; the build need not repeat it.
  typescript: { ignoreBuildErrors: true },
  serverExternalPackages: ["@electric-sql/pglite", "pino", "prom-client", "pg"],
  experimental: {
    // Next buffers a request body for the proxy (src/proxy.ts) and passes on only this many bytes
    // of it (10 MiB by default). It must exceed the console's own limit, CONSOLE_MAX_BODY_BYTES in
    // src/server/api/body-limit.ts (a 10 MB screening list as base64, about 13.4 MiB), so that the
    // console answers a larger body 413 instead of reading a cut one as broken JSON. 16 MiB, like
    // the compose proxy's client_max_body_size.
    proxyClientMaxBodySize: 16 * 1024 * 1024,
  },
};
export default nextConfig;
