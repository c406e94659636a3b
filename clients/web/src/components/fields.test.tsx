import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Form } from "react-aria-components";
import { describe, expect, it, vi } from "vitest";
import { TextField } from "./fields";

describe("TextField", () => {
  it("shows the API's problem at its field until the value is edited, so the form can be sent again", async () => {
    const submitted = vi.fn();
    const { rerender } = render(
      <Form
        onSubmit={(event) => {
          event.preventDefault();
          submitted();
        }}
      >
        <TextField label="Name" name="name" problem="Must not be blank" />
        <button type="submit">Save</button>
      </Form>,
    );
    const input = screen.getByLabelText("Name");
    expect(input.getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByText("Must not be blank")).toBeTruthy();

    await userEvent.type(input, "Biology");
    expect(input.getAttribute("aria-invalid")).toBeNull();
    expect(screen.queryByText("Must not be blank")).toBeNull();
    await userEvent.click(screen.getByRole("button", { name: "Save" }));
    expect(submitted).toHaveBeenCalledTimes(1);

    // The next refusal (the problem goes while the form is sent, then comes back) shows again.
    rerender(
      <Form>
        <TextField label="Name" name="name" />
      </Form>,
    );
    rerender(
      <Form>
        <TextField label="Name" name="name" problem="Must not be blank" />
      </Form>,
    );
    expect(screen.getByText("Must not be blank")).toBeTruthy();
  });
});
