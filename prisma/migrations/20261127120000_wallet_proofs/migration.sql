-- Wallet proofs (docs/decisions.md, "Wallet proofs"): the keys that satisfied a binding's
-- permission, the per-challenge scope of an ESR identity request, and the simulated chain's whole
-- authorities. Nullable or with a constant default, so adding them rewrites no rows.

-- AlterTable
ALTER TABLE "account_bindings" ADD COLUMN     "signingKeys" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "signature_nonces" ADD COLUMN     "proofScope" TEXT;

-- AlterTable
ALTER TABLE "sim_chain_accounts" ADD COLUMN     "authorities" JSONB;

-- CreateIndex
CREATE UNIQUE INDEX "signature_nonces_proofScope_key" ON "signature_nonces"("proofScope");
