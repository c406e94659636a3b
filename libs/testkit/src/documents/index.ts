// The document fixtures as their own entry point (`@study/testkit/documents`): tests of the documents service
// import them without loading the rest of the test kit (servers, containers).
export * from "./fixtures";
