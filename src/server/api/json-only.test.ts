import { describe, expect, it } from "vitest";
import { refuseNonJsonPost } from "./json-only";

const post = (type: string | null) =>
  new Request("http://localhost/api/trpc/members.add", { method: "POST", headers: type ? { "content-type": type } : {}, body: "x" });

describe("the console's procedures take JSON only", () => {
  it("refuses the body types a cross-site form can send without a preflight, and no type at all", async () => {
    for (const type of ["multipart/form-data; boundary=x", "application/x-www-form-urlencoded", "text/plain", null]) {
      const res = refuseNonJsonPost(post(type));
      expect(res?.status, String(type)).toBe(415);
      expect((await res!.json()).error.data.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    }
  });

  it("lets JSON posts and reads through", () => {
    expect(refuseNonJsonPost(post("application/json"))).toBeNull();
    expect(refuseNonJsonPost(post("Application/JSON; charset=utf-8"))).toBeNull();
    expect(refuseNonJsonPost(new Request("http://localhost/api/trpc/session.me"))).toBeNull();
  });
});
