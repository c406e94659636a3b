import { ConfigError, loadConfig } from "@study/platform";
import { notificationsConfigSchema } from "../../src/config";

const required = { DATABASE_URL: "postgresql://localhost/notifications", RABBITMQ_URL: "amqp://localhost" };

describe("notifications configuration", () => {
  it("serves on 50052, cleans up daily at 03:17 and keeps read notifications 30 days by default", () => {
    expect(loadConfig(notificationsConfigSchema, required)).toMatchObject({
      GRPC_PORT: 50052,
      NOTIFICATION_CLEANUP_CRON: "17 3 * * *",
      NOTIFICATION_RETENTION_DAYS: 30,
      EVENT_EXCHANGE: "study.events",
    });
  });

  it("takes the schedule and retention from the environment", () => {
    const env = { ...required, NOTIFICATION_CLEANUP_CRON: "0 */6 * * *", NOTIFICATION_RETENTION_DAYS: "7" };
    expect(loadConfig(notificationsConfigSchema, env)).toMatchObject({ NOTIFICATION_CLEANUP_CRON: "0 */6 * * *", NOTIFICATION_RETENTION_DAYS: 7 });
  });

  it("refuses a malformed cron pattern and a retention below one day at start-up", () => {
    expect(() => loadConfig(notificationsConfigSchema, { ...required, NOTIFICATION_CLEANUP_CRON: "daily" })).toThrow(
      new ConfigError("Invalid configuration: NOTIFICATION_CLEANUP_CRON: must be a cron pattern, e.g. 17 3 * * *"),
    );
    expect(() => loadConfig(notificationsConfigSchema, { ...required, NOTIFICATION_RETENTION_DAYS: "0" })).toThrow(/NOTIFICATION_RETENTION_DAYS/);
  });
});
