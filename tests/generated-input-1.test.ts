import { generatedInputSuite } from "./generated-input";

// Half of the generated-input suite (tests/generated-input.ts); the other half is generated-input-2.test.ts.
generatedInputSuite(0, 2);
