/**
 * The largest gRPC message a process sends or accepts: one setting for every client and every server, so that
 * what a server may answer a client may read. A page of the searchable listing (records of up to 100 000
 * characters) or a long document's text outgrows grpc-js's 4 MB default.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** The channel options that apply it (grpc-js sends without a limit by default). */
export const MESSAGE_SIZE_OPTIONS = {
  "grpc.max_receive_message_length": MAX_MESSAGE_BYTES,
  "grpc.max_send_message_length": MAX_MESSAGE_BYTES,
} as const;
