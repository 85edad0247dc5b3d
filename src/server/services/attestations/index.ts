export { AttestationSettings, AttestationSettingsInput } from "./attestations.schema";
export { defaultAttestationPublisher } from "./publisher";
export { reconcileAttestations } from "./reconcile";
export { getAttestationSettings, setAttestationSettings } from "./settings";
export { publishPending } from "./sync";
