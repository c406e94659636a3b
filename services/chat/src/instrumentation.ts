// Loaded first by main.ts so that OpenTelemetry patches http, gRPC, pg and amqplib before they are required.
import { startTelemetry } from "@study/platform/telemetry";

startTelemetry("chat");
