import { newId } from "@study/grpc/ids";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("newId", () => {
  it("makes RFC 9562 version 7 UUIDs whose first 48 bits are the creation time in milliseconds", () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    expect(id).toMatch(UUID_V7);
    const millis = parseInt(id.replace(/-/g, "").slice(0, 12), 16);
    expect(millis).toBeGreaterThanOrEqual(before);
    expect(millis).toBeLessThanOrEqual(after);
  });

  it("is unique and sorts in creation order, also within one millisecond", () => {
    const ids = Array.from({ length: 5_000 }, () => newId());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it("loads no gRPC, so that use cases may import it", () => {
    jest.isolateModules(() => {
      const refuse = (name: string) => () => {
        throw new Error(`@study/grpc/ids loaded ${name}`);
      };
      jest.doMock("@grpc/grpc-js", refuse("@grpc/grpc-js"));
      jest.doMock("grpc-health-check", refuse("grpc-health-check"));
      jest.doMock("@study/contracts", refuse("@study/contracts"));
      jest.doMock("@study/platform", refuse("@study/platform"));
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a fresh load under the mocks above
      const ids = require("@study/grpc/ids") as typeof import("@study/grpc/ids");
      expect(ids.newId()).toMatch(UUID_V7);
    });
  });
});
