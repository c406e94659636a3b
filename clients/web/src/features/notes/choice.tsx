import type { ReactNode } from "react";
import { RadioButton, RadioField } from "react-aria-components";

/** One option of a RadioGroup: react-aria's radio (a real input, arrow keys between options) with its label. */
export function Choice({ value, children }: { value: string; children: ReactNode }) {
  return (
    <RadioField value={value} className="choice">
      <RadioButton className="radio">{children}</RadioButton>
    </RadioField>
  );
}
