export { authorizationServerMetadata, credentialIssuerMetadata, jwtVcIssuerMetadata, typeMetadata } from "./metadata";
export { createWalletOffer } from "./offers";
export { WalletOfferCreated, WalletOfferInput } from "./offers.schema";
export { credentialEndpoint, nonceEndpoint, type ProtocolAnswer, tokenEndpoint } from "./protocol";
export {
  AuthorizationServerMetadataView,
  CredentialIssuerMetadataView,
  JwtVcIssuerMetadataView,
  ProtocolAnswerView,
  TypeMetadataView,
} from "./protocol.schema";
