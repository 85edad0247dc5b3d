"use client";

/**
 * The hosted bind page's wallet step, on WharfKit: SessionKit with its web renderer and the wallet
 * plugins for Anchor, Wombat and Cloud Wallet (plus the private-key test wallet outside
 * production). The wallet code is loaded only when the user asks to connect, and bundled with the
 * page (no third-party script). Sessions are kept in memory only: nothing about the wallet, least
 * of all a test key, is written to the browser's storage.
 */

export type WalletChain = { id: string; url: string };
export type ProofChallenge = {
  nonce: string;
  transaction: {
    chainId: string;
    action: { account: string; name: string; authorization: { actor: string; permission: string }[]; data: string };
  };
};
export type WalletProof = { nonce: string; signedTransaction: { transaction: string; signatures: string[] } };

/** The wallet connected an account other than the one the link is for. */
export class OtherAccountError extends Error {
  constructor(readonly connected: string) {
    super(`other account: ${connected}`);
  }
}

/** The name SessionKit gives wallets (an Antelope name: Anchor shows it and uses it as the login's scope). */
const APP_NAME = "bindidentity";

function memoryStorage() {
  const kept = new Map<string, string>();
  return {
    write: async (key: string, data: string) => {
      kept.set(key, data);
    },
    read: async (key: string) => kept.get(key) ?? null,
    remove: async (key: string) => {
      kept.delete(key);
    },
  };
}

let renderer: Promise<unknown> | undefined;

/** One web renderer per page: it adds its dialog element to the document once. */
async function webRenderer() {
  renderer ??= import("@wharfkit/web-renderer").then(({ WebRenderer }) => new WebRenderer());
  return renderer as Promise<import("@wharfkit/web-renderer").WebRenderer>;
}

async function walletPlugins(sandboxKey: string | undefined) {
  const [{ WalletPluginAnchor }, { WalletPluginWombat }, { WalletPluginCloudWallet }] = await Promise.all([
    import("@wharfkit/wallet-plugin-anchor"),
    import("@wharfkit/wallet-plugin-wombat"),
    import("@wharfkit/wallet-plugin-cloudwallet"),
  ]);
  const plugins = [new WalletPluginAnchor(), new WalletPluginWombat(), new WalletPluginCloudWallet()];
  if (!sandboxKey) return plugins;
  const { WalletPluginPrivateKey } = await import("@wharfkit/wallet-plugin-privatekey");
  return [...plugins, new WalletPluginPrivateKey(sandboxKey)];
}

/**
 * Logs in with the user's wallet (the renderer lists the wallets; the sandbox key skips the list),
 * checks it is the link's account, then has the wallet sign the challenge's proof transaction
 * without broadcasting it. `challenge` is asked for only once the wallet is connected, so its ten
 * minutes are not spent while the user looks for their wallet.
 */
export async function signBindProof(input: {
  chain: WalletChain;
  account: string;
  sandboxKey?: string;
  challenge: () => Promise<ProofChallenge>;
}): Promise<WalletProof> {
  const [{ SessionKit }, { Serializer }, ui, walletPluginList] = await Promise.all([
    import("@wharfkit/session"),
    import("@wharfkit/antelope"),
    webRenderer(),
    walletPlugins(input.sandboxKey),
  ]);
  const kit = new SessionKit(
    { appName: APP_NAME, chains: [input.chain], ui, walletPlugins: walletPluginList },
    { storage: memoryStorage(), allowModify: false },
  );
  const { session } = await kit.login(
    input.sandboxKey
      ? { chain: input.chain.id, walletPlugin: "wallet-plugin-privatekey", permissionLevel: `${input.account}@active` }
      : { chain: input.chain.id },
  );
  if (String(session.actor) !== input.account) throw new OtherAccountError(String(session.actor));
  const challenge = await input.challenge();
  const authorization = [{ actor: String(session.actor), permission: String(session.permission) }];
  const result = await session.transact({ action: { ...challenge.transaction.action, authorization } }, { broadcast: false });
  if (!result.resolved) throw new Error("the wallet returned no transaction");
  return {
    nonce: challenge.nonce,
    signedTransaction: {
      transaction: Serializer.encode({ object: result.resolved.transaction }).hexString,
      signatures: result.signatures.map(String),
    },
  };
}
