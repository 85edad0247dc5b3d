import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The path of `rootPath` (a path from the checkout's or the image's root, such as
 * "native/build/chunk-digests.node") for the module at `callerUrl` (its import.meta.url): under
 * the root that the caller's own path shows when it runs from its sources (everything before its
 * `src/server/`), where the file is there; else under the working directory, which is where a
 * bundled copy of the caller runs (Next's build of the console's routes, the test suite's
 * bundles). Made from strings at run time: Next's bundler copies a file that
 * `new URL("./x", import.meta.url)` names among the site's public static files.
 */
export function checkoutFile(callerUrl: string, rootPath: string): string {
  if (callerUrl.startsWith("file:")) {
    const caller = fileURLToPath(callerUrl);
    const at = caller.lastIndexOf(`${path.sep}src${path.sep}server${path.sep}`);
    if (at >= 0) {
      const found = path.join(caller.slice(0, at), rootPath);
      if (fs.existsSync(found)) return found;
    }
  }
  return path.resolve(rootPath);
}
