export { authorizationServerMetadata, credentialIssuerMetadata, jwtVcIssuerMetadata, typeMetadata } from "./metadata";
export { createWalletOffer } from "./offers";
export { WalletOfferCreated, WalletOfferInput } from "./offers.schema";
export {
  consentView,
  createPresentationRequest,
  dcqlQueryFor,
  declinePresentation,
  getPresentation,
  registerPresentationKind,
  requestObject,
  responseEndpoint,
} from "./presentations";
export { PresentationParams, PresentationRequestInput, PresentationStatus, PresentationView } from "./presentations.schema";
export { credentialEndpoint, nonceEndpoint, type ProtocolAnswer, tokenEndpoint } from "./protocol";
export {
  AuthorizationServerMetadataView,
  CredentialIssuerMetadataView,
  JwtVcIssuerMetadataView,
  ProtocolAnswerView,
  TypeMetadataView,
} from "./protocol.schema";
