export { authorizationServerMetadata, credentialIssuerMetadata, jwtVcIssuerMetadata, typeMetadata } from "./metadata";
export { createWalletOffer } from "./offers";
export { WalletOfferCreated, WalletOfferInput } from "./offers.schema";
export {
  consentView,
  createPresentationRequest,
  declinePresentation,
  getPresentation,
  requestObject,
  responseEndpoint,
} from "./presentations";
export { PresentationParams, PresentationRequestInput, PresentationView } from "./presentations.schema";
export { credentialEndpoint, nonceEndpoint, type ProtocolAnswer, tokenEndpoint } from "./protocol";
export {
  AuthorizationServerMetadataView,
  CredentialIssuerMetadataView,
  JwtVcIssuerMetadataView,
  ProtocolAnswerView,
  TypeMetadataView,
} from "./protocol.schema";
