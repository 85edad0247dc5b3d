import * as members from "../../services/org";
import { AddMemberInput, MemberEmailParams, MemberList, MemberView, UpdateMemberInput } from "../../services/org";
import { route } from "../route";
import type { RouteDef } from "../types";

const admin = { scope: "admin" } as const;
const tag = "Admin";

/** /v1/admin/members: console memberships, the same service functions the console's members page calls. */
export const memberRoutes: RouteDef[] = [
  route({
    method: "GET",
    path: "/v1/admin/members",
    auth: admin,
    tag,
    summary: "Console memberships of the organization, active first, deactivated ones included.",
    response: MemberList,
    handler: ({ ctx }) => members.listMembers(ctx),
  }),
  route({
    method: "POST",
    path: "/v1/admin/members",
    auth: admin,
    tag,
    summary:
      "Adds a console member. Re-adding an existing address updates its role and reactivates it. Adding the first member ends password-only (owner) sign-in.",
    body: AddMemberInput,
    response: MemberView,
    successStatus: 201,
    errors: ["VALIDATION_ERROR", "CONFLICT"],
    handler: ({ ctx, body }) => members.addMember(ctx, body),
  }),
  route({
    method: "PATCH",
    path: "/v1/admin/members/{email}",
    auth: admin,
    tag,
    summary: "Changes a member's role and/or active flag. The last active owner cannot be demoted or deactivated (409 last_owner).",
    params: MemberEmailParams,
    body: UpdateMemberInput,
    response: MemberView,
    errors: ["VALIDATION_ERROR", "NOT_FOUND", "CONFLICT"],
    handler: ({ ctx, params, body }) => members.updateMember(ctx, params.email, body),
  }),
  route({
    method: "DELETE",
    path: "/v1/admin/members/{email}",
    auth: admin,
    tag,
    summary: "Deactivates a member (the row and its audit history are kept); their console session ends at its next request.",
    params: MemberEmailParams,
    response: MemberView,
    errors: ["NOT_FOUND", "CONFLICT"],
    handler: ({ ctx, params }) => members.removeMember(ctx, params.email),
  }),
];
