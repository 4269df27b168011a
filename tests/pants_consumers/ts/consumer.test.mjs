// The `javascript_test` Pants runs (Pants 2.17 has no TypeScript target type, so the test target
// is this JavaScript file). Pants runs `npm run test -- consumer.test.mjs`: package.json's `test`
// script first compiles src/ and the generated //schemas/jobs TypeScript with `tsc` (strict) into
// build/, then runs node's test runner on this file, which loads the compiled tests.
import "./build/tests/pants_consumers/ts/src/worker.test.js"; // pants: no-infer-dep
