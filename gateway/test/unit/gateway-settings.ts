/** A complete, valid set of the gateway's required settings, for tests of its configuration. */
export const VALID_GATEWAY_SETTINGS = {
  DATABASE_URL: "postgresql://u:p@db:5432/gateway",
  RABBITMQ_URL: "amqp://guest:guest@mq:5672",
  COURSES_GRPC_ADDRESS: "courses:50051",
  NOTIFICATIONS_GRPC_ADDRESS: "notifications:50052",
  MEDIA_GRPC_ADDRESS: "media:50053",
  STUDY_GRPC_ADDRESS: "study:50054",
  SEARCH_GRPC_ADDRESS: "search:50055",
  CALENDAR_GRPC_ADDRESS: "calendar:50056",
  DOCUMENTS_GRPC_ADDRESS: "documents:50057",
  BILLING_GRPC_ADDRESS: "billing:50058",
  CHAT_GRPC_ADDRESS: "chat:50059",
  AUTH_SECRET: "x".repeat(32),
  BASE_URL: "https://api.example.com",
  CLIENT_URL: "https://app.example.com",
};
