import { describe, expect, it } from "vitest";
import { startupLine } from "./startup-line";

describe("startupLine", () => {
  it("names the service, console and docs addresses on a wildcard host as localhost", () => {
    expect(startupLine({ port: 3000, host: "0.0.0.0", withNext: true, publicUrl: "http://localhost:3000" })).toBe(
      "Bind Identity listening on http://localhost:3000, console http://localhost:3000/console, docs http://localhost:3000/docs",
    );
  });

  it("adds the public address when it differs, and brackets an IPv6 host", () => {
    expect(startupLine({ port: 8080, host: "fd00::1", withNext: true, publicUrl: "https://id.example.com/" })).toBe(
      "Bind Identity listening on http://[fd00::1]:8080 (public address https://id.example.com), console http://[fd00::1]:8080/console, docs http://[fd00::1]:8080/docs",
    );
  });

  it("says there is no console when only the API is served", () => {
    expect(startupLine({ port: 4000, host: "127.0.0.1", withNext: false, publicUrl: "http://localhost:4000" })).toBe(
      "Bind Identity API listening on http://localhost:4000, API only: no console or pages (--api-only)",
    );
  });
});
