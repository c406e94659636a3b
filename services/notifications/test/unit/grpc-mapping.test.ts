import { notifications as api } from "@study/contracts";
import { fromProtoType, toProtoNotification } from "../../src/adapters/grpc/notifications-grpc-service";
import { NOTIFICATION_TYPES, type Notification } from "../../src/domain/notification";

const { NotificationType } = api;

describe("gRPC mapping of notifications", () => {
  it("maps each proto NotificationType to the domain type of the same name", () => {
    expect(fromProtoType(NotificationType.NOTIFICATION_TYPE_SYSTEM)).toBe("SYSTEM");
    expect(fromProtoType(NotificationType.NOTIFICATION_TYPE_REMINDER)).toBe("REMINDER");
    expect(fromProtoType(NotificationType.NOTIFICATION_TYPE_ALERT)).toBe("ALERT");
    expect(fromProtoType(NotificationType.NOTIFICATION_TYPE_MESSAGE)).toBe("MESSAGE");
  });

  it("has no domain type for UNSPECIFIED or an enum value it does not know", () => {
    expect(fromProtoType(NotificationType.NOTIFICATION_TYPE_UNSPECIFIED)).toBeNull();
    expect(fromProtoType(NotificationType.UNRECOGNIZED)).toBeNull();
  });

  it("sends every field of a notification, and its type back as the enum it came from", () => {
    const at = new Date("2026-05-01T08:00:00Z");
    for (const type of NOTIFICATION_TYPES) {
      const notification: Notification = { id: "id", userId: "u", type, content: "Hello", read: true, createdAt: at, updatedAt: at };
      const proto = toProtoNotification(notification);
      expect(proto).toEqual({ ...notification, type: proto.type });
      expect(fromProtoType(proto.type)).toBe(type);
    }
  });
});
