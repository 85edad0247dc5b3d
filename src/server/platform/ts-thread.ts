import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { checkoutFile } from "./checkout-file";

/**
 * The file URL of a thread's TypeScript module, `sourcePath` from the checkout's root, found from
 * the calling module's place (checkoutFile): beside its own sources, else under the working
 * directory where a bundled copy of the caller runs.
 */
export function threadModule(callerUrl: string, sourcePath: string): string {
  return pathToFileURL(checkoutFile(callerUrl, sourcePath)).href;
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
