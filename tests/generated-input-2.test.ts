import { generatedInputSuite } from "./generated-input";

// Half of the generated-input suite (tests/generated-input.ts); the other half is generated-input-1.test.ts.
generatedInputSuite(1, 2);
