import { z } from "zod";
import { intParam, MAX_INT32 } from "../../src/http/query";

describe("intParam", () => {
  const query = z.object({ offset: intParam(0, Number.MAX_SAFE_INTEGER, 0), limit: intParam(1, 100, 20) });

  it("accepts integers up to the int32 limit and falls back when absent", () => {
    expect(query.parse({})).toEqual({ offset: 0, limit: 20 });
    expect(query.parse({ offset: String(MAX_INT32), limit: "100" })).toEqual({ offset: 2147483647, limit: 100 });
  });

  // The values travel in protobuf int32 fields: a larger one would fail to encode in the gRPC call (a 500).
  it("refuses values above 2147483647 even when the route allows more", () => {
    for (const offset of ["2147483648", "3000000000", "9007199254740991", "99999999999999999999999"]) {
      const result = query.safeParse({ offset });
      expect(result.success).toBe(false);
      expect(result.error!.issues.map((issue) => issue.path)).toContainEqual(["offset"]);
      expect(result.error!.issues.map((issue) => issue.message)).toContain("must be at most 2147483647");
    }
    expect(query.safeParse({ offset: "3000000000" }).error!.issues[0].message).toBe("must be at most 2147483647");
  });

  it("keeps the route's own bounds and the integer format", () => {
    expect(query.safeParse({ limit: "101" }).error!.issues[0].message).toBe("must be at most 100");
    expect(query.safeParse({ offset: "-1" }).error!.issues[0].message).toBe("must be at least 0");
    expect(query.safeParse({ offset: "1.5" }).error!.issues[0].message).toBe("must be an integer");
  });

  it("is documented as an integer in its range (the fuzzer's valid requests read the document)", () => {
    const schema = z.toJSONSchema(query, { io: "input", unrepresentable: "any", target: "draft-2020-12" }) as { properties: Record<string, unknown> };
    expect(schema.properties.limit).toEqual({ type: "integer", minimum: 1, maximum: 100 });
    expect(schema.properties.offset).toEqual({ type: "integer", minimum: 0, maximum: MAX_INT32 });
  });
});
