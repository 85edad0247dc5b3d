import * as billing from "../../services/billing";
import { SandboxTransfer, SandboxTransferInput } from "../../services/billing";
import { route } from "../route";

export const sandboxChainRoutes = [
  route({
    method: "POST", path: "/v1/sandbox/chain/transfer", auth: { scope: "read" }, tag: "Sandbox", sandboxOnly: true,
    summary: "Sandbox: records a token transfer on the simulated chain; irreversible after SANDBOX_CHAIN_FINALITY_SEC (until then chain confirm answers 425).",
    body: SandboxTransferInput, response: SandboxTransfer, successStatus: 200, errors: ["NOT_FOUND"],
    handler: ({ ctx, body }) => billing.sandboxChainTransfer(ctx, body),
  }),
];
