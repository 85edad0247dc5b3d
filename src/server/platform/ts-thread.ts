import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * The file URL of a thread's TypeScript module: `sourcePath`'s file name beside the module at
 * `callerUrl` (its import.meta.url) when the service runs from its sources, else `sourcePath`
 * under the working directory (the checkout's or the image's root), where a bundled copy of the
 * caller runs: Next's build of the console's routes, the test suite's bundles. Built from strings
 * at run time: Next's bundler copies the file a `new URL("./x.ts", import.meta.url)` names among
 * the site's public static files.
 */
export function threadModule(callerUrl: string, sourcePath: string): string {
  if (callerUrl.startsWith("file:")) {
    const beside = path.join(path.dirname(fileURLToPath(callerUrl)), path.basename(sourcePath));
    if (fs.existsSync(beside)) return pathToFileURL(beside).href;
  }
  return pathToFileURL(path.resolve(sourcePath)).href;
}

/**
 * A worker thread running the TypeScript module at `file` (a file URL). The service's TypeScript
 * runs through tsx, whose loader a thread does not inherit on Node 20: the thread registers it
 * (tsx's tsImport) and then loads its module. Throws as the Worker constructor does.
 */
export function tsWorker(file: string): Worker {
  const boot = `import("tsx/esm/api").then(({ tsImport }) => tsImport(${JSON.stringify(file)}, ${JSON.stringify(file)}))`;
  return new Worker(boot, { eval: true });
}
