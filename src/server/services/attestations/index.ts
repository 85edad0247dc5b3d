export { AttestationSettings, AttestationSettingsInput } from "./attestations.schema";
export { getAttestationSettings, setAttestationSettings } from "./settings";
