import type { ReactNode } from "react";
import { CheckboxButton, CheckboxField, RadioButton, RadioField } from "react-aria-components";

/** One option of a RadioGroup: the whole row is the label, with a drawn indicator (study.css). */
export function RadioChoice({ value, children, isDisabled }: { value: string; children: ReactNode; isDisabled?: boolean }) {
  return (
    <RadioField value={value} isDisabled={isDisabled} className="choice-field">
      <RadioButton className="choice radio">{children}</RadioButton>
    </RadioField>
  );
}

/** One option of a CheckboxGroup, drawn like RadioChoice with a square indicator. */
export function CheckboxChoice({ value, children, isDisabled }: { value: string; children: ReactNode; isDisabled?: boolean }) {
  return (
    <CheckboxField value={value} isDisabled={isDisabled} className="choice-field">
      <CheckboxButton className="choice checkbox">{children}</CheckboxButton>
    </CheckboxField>
  );
}
