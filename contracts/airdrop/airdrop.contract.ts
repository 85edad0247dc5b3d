// An airdrop that only verified humans may claim, once per account: the worked example of
// docs/api/guides/onchain.md. It reads the attestation contract's table; claiminline asks the
// attestation contract's require action instead.
import {
  Action,
  ActionData,
  Contract,
  Name,
  Singleton,
  Table,
  TableStore,
  TimePointSec,
  check,
  currentTimeSec,
  requireAuth,
} from "proton-tsc";

/** The attestation contract's row, field for field. noabigen: it is that contract's table, not ours. */
@table("attests", noabigen)
class Attest extends Table {
  constructor(
    public account: Name = new Name(),
    public org: u64 = 0,
    public level: u8 = 0,
    public country_tier: u8 = 0,
    public country: string = "",
    public issued: TimePointSec = new TimePointSec(),
    public expires: TimePointSec = new TimePointSec(),
    public status: u8 = 0,
    public person: string = "",
    public status_index: u64 = 0,
    public updated: TimePointSec = new TimePointSec(),
  ) {
    super();
  }

  @primary
  get primary(): u64 {
    return this.account.N;
  }
}

/** The attestation contract's require action's arguments. */
@packer
class RequireArgs extends ActionData {
  constructor(
    public account: Name = new Name(),
    public min_level: u8 = 0,
  ) {
    super();
  }
}

@table("config", singleton)
class Config extends Table {
  constructor(
    /** The attestation contract's account. */
    public attestations: Name = new Name(),
    /** Only this organization's attestations count; 0: any organization's. */
    public org: u64 = 0,
    public min_level: u8 = 1,
  ) {
    super();
  }
}

@table("claims")
class Claim extends Table {
  constructor(
    public account: Name = new Name(),
    public claimed: TimePointSec = new TimePointSec(),
  ) {
    super();
  }

  @primary
  get primary(): u64 {
    return this.account.N;
  }
}

@contract
class AirdropContract extends Contract {
  configTable: Singleton<Config> = new Singleton<Config>(this.receiver);
  claims: TableStore<Claim> = new TableStore<Claim>(this.receiver);

  @action("init")
  init(attestations: Name, org: u64, min_level: u8): void {
    requireAuth(this.receiver);
    this.configTable.set(new Config(attestations, org, min_level), this.receiver);
  }

  /** Claims by reading the attestation table directly. */
  @action("claim")
  claim(account: Name): void {
    requireAuth(account);
    const config = this.config();

    const attests = new TableStore<Attest>(config.attestations, config.attestations);
    const row = attests.get(account.N);
    check(row != null, "not verified");
    const attest = row!;
    check(attest.status != 1, "verification suspended");
    check(attest.status == 0, "verification revoked");
    check(currentTimeSec() < attest.expires.utcSeconds, "verification expired");
    check(attest.level >= config.min_level, "verification level too low");
    check(config.org == 0 || attest.org == config.org, "verified by another organization");

    this.record(account);
  }

  /** Claims through the attestation contract's require action, sent inline: if it fails, so does this claim. */
  @action("claiminline")
  claiminline(account: Name): void {
    requireAuth(account);
    const config = this.config();

    const args = new RequireArgs(account, config.min_level);
    new Action(config.attestations, Name.fromString("require"), [], args.pack()).send();

    this.record(account);
  }

  private config(): Config {
    const config = this.configTable.getOrNull();
    check(config != null, "airdrop not initialized");
    return config!;
  }

  private record(account: Name): void {
    check(!this.claims.exists(account.N), "already claimed");
    this.claims.store(new Claim(account, new TimePointSec(currentTimeSec())), this.receiver);
    // A real airdrop sends its tokens here.
  }
}
