// The attestation contract: one row per chain account that Bind Identity vouches for, kept in step
// with the service's bindings. It publishes no personal data: no name, birth date, document or
// nationality; a country only where the organization opted in. Guide: docs/api/guides/onchain.md.
import {
  Contract,
  Name,
  PermissionLevel,
  Singleton,
  Table,
  TableStore,
  TimePointSec,
  check,
  currentTimeSec,
  isAccount,
  print,
  requireAuth,
  requireAuth2,
} from "proton-tsc";

// status
export const ACTIVE: u8 = 0;
export const SUSPENDED: u8 = 1;
export const REVOKED: u8 = 2;

const PERSON_MAX_LENGTH = 64;

/** Who may write attestations: exactly this permission of this account (set by the contract account). */
@table("config", singleton)
export class Config extends Table {
  constructor(
    public issuer: Name = new Name(),
    public permission: Name = new Name(),
    /** Where the next expire sweep starts (an account name as u64; 0 = from the first row). */
    public sweep_from: u64 = 0,
  ) {
    super();
  }
}

/** One attested account. Scope: the contract account. Primary key: the account name. */
@table("attests")
export class Attest extends Table {
  constructor(
    public account: Name = new Name(),
    /** The organization that vouches, an opaque number chosen by the issuer. */
    public org: u64 = 0,
    /** 1 = KYC verified, 2 = verified and bound to this account by the account's own wallet. */
    public level: u8 = 0,
    /** The organization's risk tier of the person's country, never the country itself. */
    public country_tier: u8 = 0,
    /** ISO 3166-1 alpha-2, or empty: only where the organization opted in to publish it. */
    public country: string = "",
    public issued: TimePointSec = new TimePointSec(),
    /** The first second at which the attestation no longer holds. */
    public expires: TimePointSec = new TimePointSec(),
    /** 0 active, 1 suspended, 2 revoked. */
    public status: u8 = ACTIVE,
    /** The binding's pairwise person id for this organization, or empty. */
    public person: string = "",
    /** The binding credential's position in its status list. */
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

function isCountryCode(country: string): bool {
  if (country.length != 2) return false;
  for (let i = 0; i < 2; i++) {
    const c = country.charCodeAt(i);
    if (c < 65 || c > 90) return false; // A-Z
  }
  return true;
}

@contract
export class AttestationContract extends Contract {
  configTable: Singleton<Config> = new Singleton<Config>(this.receiver);
  attests: TableStore<Attest> = new TableStore<Attest>(this.receiver, this.receiver);

  /** Names the account and permission that may write attestations. Only the contract account itself may call it. */
  @action("setissuer")
  setissuer(issuer: Name, permission: Name): void {
    requireAuth(this.receiver);
    check(isAccount(issuer), "issuer account does not exist");
    const config = this.configTable.get();
    config.issuer = issuer;
    config.permission = permission;
    this.configTable.set(config, this.receiver);
  }

  /** Creates or replaces the account's attestation, active from now. A revoked account may be issued again: a new binding is a new decision. */
  @action("issue")
  issue(
    account: Name,
    org: u64,
    level: u8,
    country_tier: u8,
    country: string,
    expires: TimePointSec,
    person: string,
    status_index: u64,
  ): void {
    this.requireIssuer();
    const now = currentTimeSec();
    check(isAccount(account), "account does not exist");
    check(org != 0, "org must not be 0 (consumers read 0 as any organization)");
    check(level >= 1, "level must be 1 or more");
    check(country.length == 0 || isCountryCode(country), "country must be empty or two capital letters (ISO 3166-1 alpha-2)");
    check(expires.utcSeconds > now, "expires must be in the future");
    check(person.length <= PERSON_MAX_LENGTH, "person is longer than 64 characters");
    const now_ = new TimePointSec(now);
    const row = new Attest(account, org, level, country_tier, country, now_, expires, ACTIVE, person, status_index, now_);
    this.attests.set(row, this.receiver);
  }

  /**
   * Suspends an active attestation. Suspending a suspended one changes nothing; a revoked one is refused.
   * reason_code is not stored; it stays public in the chain's history (codes: docs/api/guides/onchain.md).
   */
  @action("suspend")
  suspend(account: Name, reason_code: u8): void {
    this.requireIssuer();
    const row = this.requireRow(account);
    if (row.status == REVOKED) check(false, `attestation of ${account} is revoked: issue a new one`);
    if (row.status == SUSPENDED) return;
    this.setStatus(row, SUSPENDED);
  }

  /** Makes a suspended attestation active again. Reinstating an active one changes nothing; a revoked one is refused. */
  @action("reinstate")
  reinstate(account: Name): void {
    this.requireIssuer();
    const row = this.requireRow(account);
    if (row.status == REVOKED) check(false, `attestation of ${account} is revoked: issue a new one`);
    if (row.status == ACTIVE) return;
    this.setStatus(row, ACTIVE);
  }

  /** Revokes the attestation until a new issue. Revoking a revoked one changes nothing. reason_code as for suspend. */
  @action("revoke")
  revoke(account: Name, reason_code: u8): void {
    this.requireIssuer();
    const row = this.requireRow(account);
    if (row.status == REVOKED) return;
    this.setStatus(row, REVOKED);
  }

  /**
   * Removes the rows whose expiry has passed, looking at no more than max_rows rows: from where the
   * last sweep stopped, in account order, starting again from the first after the last.
   */
  @action("expire")
  expire(max_rows: u32): void {
    this.requireIssuer();
    check(max_rows >= 1, "max_rows must be 1 or more");
    const now = currentTimeSec();
    const config = this.configTable.get();
    let row = this.attests.lowerBound(config.sweep_from);
    let seen: u32 = 0;
    let removed: u32 = 0;
    while (row != null && seen < max_rows) {
      const next = this.attests.next(row);
      if (row.expires.utcSeconds <= now) {
        this.attests.remove(row);
        removed++;
      }
      seen++;
      row = next;
    }
    config.sweep_from = row == null ? 0 : row.account.N;
    this.configTable.set(config, this.receiver);
    print(`expire: looked at ${seen}, removed ${removed}`);
  }

  /** Deletes the account's row (erasure of the person). Removing a missing row changes nothing. */
  @action("remove")
  remove(account: Name): void {
    this.requireIssuer();
    const row = this.attests.get(account.N);
    if (row != null) this.attests.remove(row);
  }

  /**
   * Read-only: fails unless the account has an active, unexpired attestation of at least min_level.
   * Needs no authorization: other contracts send it inline, and a failure reverts their transaction.
   */
  @action("require")
  require(account: Name, min_level: u8): void {
    const row = this.attests.get(account.N);
    if (row == null) check(false, `${account} has no attestation`);
    const a = row!;
    if (a.status == REVOKED) check(false, `attestation of ${account} is revoked`);
    if (a.status != ACTIVE) check(false, `attestation of ${account} is suspended`);
    if (currentTimeSec() >= a.expires.utcSeconds) check(false, `attestation of ${account} has expired`);
    if (a.level < min_level) check(false, `attestation of ${account} is level ${a.level}, below ${min_level}`);
  }

  private requireIssuer(): void {
    const config = this.configTable.getOrNull();
    check(config != null, "no issuer yet: the contract account calls setissuer first");
    requireAuth2(new PermissionLevel(config!.issuer, config!.permission));
  }

  private requireRow(account: Name): Attest {
    const row = this.attests.get(account.N);
    if (row == null) check(false, `${account} has no attestation`);
    return row!;
  }

  private setStatus(row: Attest, status: u8): void {
    row.status = status;
    row.updated = new TimePointSec(currentTimeSec());
    this.attests.update(row, this.receiver);
  }
}
