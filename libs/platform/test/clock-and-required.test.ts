import { fixedClock, systemClock } from "../src/clock";
import { AppError, required } from "../src/errors";

describe("Clock", () => {
  it("a fixed clock stays where it is put until it is set or advanced", () => {
    const clock = fixedClock("2026-03-02T09:00:00.000Z");
    expect(clock.now()).toEqual(new Date("2026-03-02T09:00:00.000Z"));
    clock.advance(90_000);
    expect(clock.now()).toEqual(new Date("2026-03-02T09:01:30.000Z"));
    clock.set("2027-01-01T00:00:00.000Z");
    expect(clock.now()).toEqual(new Date("2027-01-01T00:00:00.000Z"));
  });

  it("hands out a fresh Date: a caller changing it does not move the clock", () => {
    const clock = fixedClock("2026-03-02T09:00:00.000Z");
    clock.now().setFullYear(1999);
    expect(clock.now()).toEqual(new Date("2026-03-02T09:00:00.000Z"));
  });

  it("the system clock reads the machine's time", () => {
    const before = Date.now();
    const now = systemClock.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});

describe("required", () => {
  it("returns a present value, falsy ones included", () => {
    expect(required({ id: "c1" }, "course")).toEqual({ id: "c1" });
    expect(required(0, "count")).toBe(0);
    expect(required("", "name")).toBe("");
  });

  it.each([undefined, null])("fails on %s with an internal error naming what was missing", (value) => {
    let thrown: unknown;
    try {
      required(value, "course in GetCourse reply");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({ kind: "internal", code: "INTERNAL_ERROR", message: "Missing course in GetCourse reply" });
  });
});
