// Loaded first by main.ts so that OpenTelemetry patches http, express, gRPC, pg and amqplib before they load.
import { startTelemetry } from "@study/platform/telemetry";

startTelemetry("gateway");
