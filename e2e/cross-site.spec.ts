import { expect, test } from "@playwright/test";
import { callProcedure, createOrg, signIn, uniq } from "./console-helpers";

// The session cookie as the browser holds it, and a state change forged from another site: a
// page on another origin auto-submits a form to the console's procedures while a member is
// signed in. The browser sends it; the service must change nothing.

test("the session cookie is HttpOnly and SameSite=Lax, and a cross-site form changes nothing", async ({ page, baseURL }) => {
  const org = await createOrg();
  const owner = uniq("owner");
  await signIn(page, org, owner);

  const session = (await page.context().cookies()).find((c) => c.name.endsWith("next-auth.session-token"));
  expect(session, "the console's session cookie").toBeDefined();
  expect(session!.httpOnly).toBe(true);
  expect(session!.sameSite).toBe("Lax");

  // Even with the member's own cookie, a procedure takes JSON only: a form body is 415.
  const formPost = await page.request.post("/api/trpc/members.add", {
    multipart: { json: JSON.stringify({ json: { email: uniq("multipart"), role: "owner" } }) },
  });
  expect(formPost.status()).toBe(415);

  const victim = uniq("forged");
  const target = `${baseURL}/api/trpc/members.add`;
  // Another origin, served by the test: a form the browser may send cross-site without a preflight.
  await page.route("http://attacker.test/**", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<form id="f" method="POST" action="${target}" enctype="text/plain">
        <input name='{"json":{"email":"${victim}","role":"owner"},"x":"' value='"}'>
      </form><script>document.getElementById("f").submit()</script>`,
    }),
  );
  const landed = page.waitForResponse((r) => r.url().startsWith(target));
  await page.goto("http://attacker.test/forge");
  expect((await landed).status()).toBeGreaterThanOrEqual(400);

  await page.goto("/console");
  const members = await callProcedure(page, "members.list", "query");
  expect(members.status()).toBe(200);
  expect(await members.text()).not.toContain(victim);
  expect(await members.text()).not.toContain("multipart");
});
