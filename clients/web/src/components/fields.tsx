import type { ReactNode } from "react";
import {
  Button as AriaButton,
  type ButtonProps,
  FieldError,
  Input,
  Label,
  Text,
  TextArea,
  TextField as AriaTextField,
  type TextFieldProps,
} from "react-aria-components";

/** A button named by what it does; `variant` only changes its look. */
export function Button({ variant = "primary", className, ...props }: ButtonProps & { variant?: "primary" | "secondary" | "danger" }) {
  return <AriaButton {...props} className={`button ${variant} ${typeof className === "string" ? className : ""}`} />;
}

interface FieldProps extends Omit<TextFieldProps, "children"> {
  label: string;
  description?: ReactNode;
  /** The API's message for this field (VALIDATION_ERROR details), shown under it. */
  problem?: string;
  multiline?: boolean;
  placeholder?: string;
}

/** A labelled text input with its description and error: react-aria ties them to the input for screen readers. */
export function TextField({ label, description, problem, multiline, placeholder, ...props }: FieldProps) {
  return (
    <AriaTextField {...props} className="field" isInvalid={problem ? true : props.isInvalid}>
      <Label>{label}</Label>
      {multiline ? <TextArea placeholder={placeholder} /> : <Input placeholder={placeholder} />}
      {description && <Text slot="description">{description}</Text>}
      <FieldError>{problem}</FieldError>
    </AriaTextField>
  );
}
