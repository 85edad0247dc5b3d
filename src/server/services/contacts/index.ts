export { confirmContactChange, contactChallenge, payloadToSign, startContactChange } from "./contact-change";
export { AccountContacts, ContactChallenge, ContactChallengeInput, ContactChangeStarted, ContactChanged, ContactEmailStartInput, ContactPhoneStartInput, EmailOtpStartInput, EmailOtpStarted, EmailProof, OtpConfirmInput, PhoneOtpStartInput, PhoneOtpStarted, PhoneProof } from "./contacts.schema";
export { confirmEmailVerification, confirmPhoneVerification, getContacts, startEmailVerification, startPhoneVerification } from "./contacts";
export { OTP, confirmChallenge, issueProofToken, spendProofToken, startChallenge } from "./otp";
