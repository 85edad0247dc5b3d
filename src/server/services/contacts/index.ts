export { confirmContactChange, contactChallenge, payloadToSign, startContactChange } from "./contact-change";
export {
  confirmEmailVerification,
  confirmPhoneVerification,
  getContacts,
  startEmailVerification,
  startPhoneVerification,
} from "./contacts";
export {
  AccountContacts,
  ContactChallenge,
  ContactChallengeInput,
  ContactChanged,
  ContactChangeStarted,
  ContactEmailStartInput,
  ContactPhoneStartInput,
  EmailOtpStarted,
  EmailOtpStartInput,
  EmailProof,
  OtpConfirmInput,
  PhoneOtpStarted,
  PhoneOtpStartInput,
  PhoneProof,
} from "./contacts.schema";
export {
  confirmChallenge,
  issueProofToken,
  OTP,
  type ProofTokenRow,
  proofTokenColumn,
  spendProofToken,
  spendProofTokenSql,
  startChallenge,
  unspendProofTokenSql,
  usableProofRow,
  usableProofToken,
} from "./otp";
