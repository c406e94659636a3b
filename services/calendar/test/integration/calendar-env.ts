import { testRabbitMqUrl, uniqueSuffix } from "@study/testkit";

/**
 * The settings of a calendar service started by an integration test: its database, the test broker on an exchange
 * of its own (unless given), a free port, no logs, the stand-in courses and identity services, and `extra`.
 */
export function calendarTestEnv(
  databaseUrl: string,
  peers: { courses: { address: string }; identity: { address: string } },
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    RABBITMQ_URL: testRabbitMqUrl(),
    GRPC_PORT: "0",
    EVENT_EXCHANGE: `test.${uniqueSuffix()}`,
    LOG_LEVEL: "silent",
    COURSES_GRPC_ADDRESS: peers.courses.address,
    IDENTITY_GRPC_ADDRESS: peers.identity.address,
    ...extra,
  };
}
