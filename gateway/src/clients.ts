import { billing, calendar, chat, courses, documents, media, notifications, search, study } from "@study/contracts";
import { createClient } from "@study/grpc";
import { CATALOGUE, type Catalogue, type ServiceName } from "@study/platform/catalogue";
import type { GatewayConfig } from "./config";

/** Where each catalogue service listens (`host:port` by service name), from its *_GRPC_ADDRESS setting. */
export function serviceAddresses(settings: Record<string, unknown>): Record<ServiceName, string>;
export function serviceAddresses(settings: Record<string, unknown>, catalogue: Catalogue): Record<string, string>;
export function serviceAddresses(settings: Record<string, unknown>, catalogue: Catalogue = CATALOGUE): Record<string, string> {
  return Object.fromEntries(catalogue.map((entry) => [entry.name, String(settings[entry.grpcAddressVariable])]));
}

/** One typed gRPC client per downstream service; each client names its contract, the catalogue its address. */
export function createServiceClients(config: GatewayConfig) {
  const options = { deadlineMs: config.GRPC_DEADLINE_MS };
  const address = serviceAddresses(config);
  return {
    courses: createClient(courses.CoursesServiceClient, courses.CoursesServiceService, address.courses, options),
    notifications: createClient(notifications.NotificationsServiceClient, notifications.NotificationsServiceService, address.notifications, options),
    media: createClient(media.MediaServiceClient, media.MediaServiceService, address.media, options),
    study: createClient(study.StudyServiceClient, study.StudyServiceService, address.study, options),
    search: createClient(search.SearchServiceClient, search.SearchServiceService, address.search, options),
    calendar: createClient(calendar.CalendarServiceClient, calendar.CalendarServiceService, address.calendar, options),
    documents: createClient(documents.DocumentsServiceClient, documents.DocumentsServiceService, address.documents, options),
    billing: createClient(billing.BillingServiceClient, billing.BillingServiceService, address.billing, options),
    chat: createClient(chat.ChatServiceClient, chat.ChatServiceService, address.chat, options),
  };
}

export type ServiceClients = ReturnType<typeof createServiceClients>;
