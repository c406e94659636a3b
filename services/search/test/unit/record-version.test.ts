import { shouldApply } from "../../src/domain/record-version";

const at = (iso: string) => new Date(iso);

describe("shouldApply (the ordering rule of the index)", () => {
  it("applies a record never seen", () => {
    expect(shouldApply(undefined, at("2025-01-01T00:00:00Z"))).toBe(true);
    expect(shouldApply(null, at("2025-01-01T00:00:00Z"))).toBe(true);
  });

  it("applies a newer or equal version, and skips an older one", () => {
    const held = { updatedAt: at("2025-01-02T00:00:00Z") };
    expect(shouldApply(held, at("2025-01-03T00:00:00Z"))).toBe(true);
    expect(shouldApply(held, at("2025-01-02T00:00:00Z"))).toBe(true);
    expect(shouldApply(held, at("2025-01-01T23:59:59.999Z"))).toBe(false);
  });

  it("never applies anything to a tombstoned record, however new", () => {
    const tombstone = { updatedAt: at("2025-01-02T00:00:00Z"), deletedAt: at("2025-01-02T00:00:00Z") };
    expect(shouldApply(tombstone, at("2030-01-01T00:00:00Z"))).toBe(false);
    expect(shouldApply({ updatedAt: at("2025-01-02T00:00:00Z"), deletedAt: null }, at("2025-01-03T00:00:00Z"))).toBe(true);
  });
});
