import fs from "node:fs";
import path from "node:path";
import { env } from "@/env";

/** Reads a local-only file under BI_DATA_DIR, creating it once with `make()` (mode 0600). */
export function localSecretFile(name: string, make: () => string): string {
  const file = path.resolve(env().BI_DATA_DIR, "keys", name);
  if (fs.existsSync(file)) return fs.readFileSync(file, "utf8").trim();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const value = make();
  try {
    fs.writeFileSync(file, `${value}\n`, { mode: 0o600, flag: "wx" });
    return value;
  } catch {
    // Another process created it first; use theirs.
    return fs.readFileSync(file, "utf8").trim();
  }
}
