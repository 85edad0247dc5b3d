import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { checkoutFile } from "./checkout-file";
import { threadModule } from "./ts-thread";

// A checkout elsewhere on disk, whose own path holds "src/server" too, with a module under
// src/server and a file the module looks for.
const root = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bi-checkout-")), "src", "server", "project");
const caller = path.join(root, "src/server/services/audit/native-digests.ts");
fs.mkdirSync(path.dirname(caller), { recursive: true });
fs.writeFileSync(caller, "");
fs.mkdirSync(path.join(root, "native/build"), { recursive: true });
fs.writeFileSync(path.join(root, "native/build/x.node"), "");
afterAll(() => fs.rmSync(path.resolve(root, "../../.."), { recursive: true, force: true }));

describe("a file of the checkout, found from the module that needs it", () => {
  it("is found under the root the caller's own path shows, however deep the caller and wherever the checkout", () => {
    expect(checkoutFile(pathToFileURL(caller).href, "native/build/x.node")).toBe(path.join(root, "native/build/x.node"));
    expect(threadModule(pathToFileURL(caller).href, "src/server/services/audit/native-digests.ts")).toBe(pathToFileURL(caller).href);
  });

  it("is looked for under the working directory where it is not beside the sources, or the caller is a bundle", () => {
    expect(checkoutFile(pathToFileURL(caller).href, "native/build/missing.node")).toBe(path.resolve("native/build/missing.node"));
    const bundle = pathToFileURL(path.join(root, "dist/server-bundle.mjs")).href;
    expect(checkoutFile(bundle, "native/build/x.node")).toBe(path.resolve("native/build/x.node"));
    expect(checkoutFile("data:text/javascript,0", "native/build/x.node")).toBe(path.resolve("native/build/x.node"));
  });
});
