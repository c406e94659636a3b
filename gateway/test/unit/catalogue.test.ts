import { ConfigError, loadConfig } from "@study/platform";
import { CATALOGUE, type Catalogue } from "@study/platform/catalogue";
import { serviceAddresses } from "../../src/clients";
import { gatewayConfigSchema, grpcAddressSettings } from "../../src/config";

/** The gateway's service settings and health list come from the catalogue, not from a list of its own. */
describe("the gateway and the service catalogue", () => {
  const required = {
    DATABASE_URL: "postgresql://nobody@127.0.0.1:1/none",
    RABBITMQ_URL: "amqp://127.0.0.1:1",
    AUTH_SECRET: "s".repeat(32),
    BASE_URL: "http://127.0.0.1:3000",
    CLIENT_URL: "https://app.example.com",
  };
  const addresses = Object.fromEntries(CATALOGUE.map((entry) => [entry.grpcAddressVariable, `${entry.name}:${entry.grpcPort}`]));

  it("requires one *_GRPC_ADDRESS setting per catalogue service", () => {
    expect(() => loadConfig(gatewayConfigSchema, required)).toThrow(ConfigError);
    let message = "";
    try {
      loadConfig(gatewayConfigSchema, required);
    } catch (error) {
      message = (error as Error).message;
    }
    for (const entry of CATALOGUE) expect(message).toContain(`${entry.grpcAddressVariable}: is required but not set`);
    expect(() => loadConfig(gatewayConfigSchema, { ...required, ...addresses })).not.toThrow();
  });

  it("lists every catalogue service, by name, at its configured address", () => {
    const config = loadConfig(gatewayConfigSchema, { ...required, ...addresses });
    expect(serviceAddresses(config)).toEqual({
      courses: "courses:50051",
      notifications: "notifications:50052",
      media: "media:50053",
      study: "study:50054",
      search: "search:50055",
      calendar: "calendar:50056",
      documents: "documents:50057",
      billing: "billing:50058",
      chat: "chat:50059",
    });
  });

  it("takes another catalogue's settings when given one (a new service needs no other edit here)", () => {
    const withPlanner: Catalogue = [
      ...CATALOGUE,
      { name: "planner", directory: "services/planner", grpcAddressVariable: "PLANNER_GRPC_ADDRESS", grpcPort: 50099 },
    ];
    const schema = gatewayConfigSchema.extend(grpcAddressSettings(withPlanner));
    expect(() => loadConfig(schema, { ...required, ...addresses })).toThrow("PLANNER_GRPC_ADDRESS: is required but not set");
    const config = loadConfig(schema, { ...required, ...addresses, PLANNER_GRPC_ADDRESS: "planner:50099" });
    expect(serviceAddresses(config, withPlanner)).toMatchObject({ courses: "courses:50051", planner: "planner:50099" });
  });
});
