// The only hand-written file of this package: everything under ./gen is generated from proto/ by `npm run generate`.
export * as common from "./gen/study/common/v1/common";
export * as courses from "./gen/study/courses/v1/courses";
export * as notifications from "./gen/study/notifications/v1/notifications";
export * as media from "./gen/study/media/v1/media";
export * as study from "./gen/study/study/v1/study";
export * as calendar from "./gen/study/calendar/v1/calendar";
export * as documents from "./gen/study/documents/v1/documents";
export * as billing from "./gen/study/billing/v1/billing";
export * as chat from "./gen/study/chat/v1/chat";
export * as search from "./gen/study/search/v1/search";
export * as indexing from "./gen/study/search/v1/indexing";
export * as gateway from "./gen/study/gateway/v1/identity";
export * as health from "./gen/grpc/health/v1/health";
export * as events from "./events";
