// App Store signed data made in the test (`@study/testkit/app-store`): a certificate chain shaped like Apple's and
// JWS payloads signed with it, for tests of code that verifies them with @apple/app-store-server-library.
export * from "./certificates";
export * from "./signer";
