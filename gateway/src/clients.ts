import { courses, media, notifications, study } from "@study/contracts";
import { createClient } from "@study/grpc";
import type { GatewayConfig } from "./config";

/** One typed gRPC client per downstream service. */
export function createServiceClients(config: GatewayConfig) {
  const options = { deadlineMs: config.GRPC_DEADLINE_MS };
  return {
    courses: createClient(courses.CoursesServiceClient, courses.CoursesServiceService, config.COURSES_GRPC_ADDRESS, options),
    notifications: createClient(
      notifications.NotificationsServiceClient,
      notifications.NotificationsServiceService,
      config.NOTIFICATIONS_GRPC_ADDRESS,
      options,
    ),
    media: createClient(media.MediaServiceClient, media.MediaServiceService, config.MEDIA_GRPC_ADDRESS, options),
    study: createClient(study.StudyServiceClient, study.StudyServiceService, config.STUDY_GRPC_ADDRESS, options),
  };
}

export type ServiceClients = ReturnType<typeof createServiceClients>;

/** Where each service listens, for the health endpoint. */
export function serviceAddresses(config: GatewayConfig): Record<string, string> {
  return {
    courses: config.COURSES_GRPC_ADDRESS,
    notifications: config.NOTIFICATIONS_GRPC_ADDRESS,
    media: config.MEDIA_GRPC_ADDRESS,
    study: config.STUDY_GRPC_ADDRESS,
  };
}
