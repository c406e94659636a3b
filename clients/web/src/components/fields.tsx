import { useEffect, useState, type ReactNode } from "react";
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

/**
 * A labelled text input with its description and error: react-aria ties them to the input for screen readers. The
 * API's `problem` shows until the value is edited: an invalid field blocks the form's native submission, so it must
 * not outlive the value it was about.
 */
export function TextField({ label, description, problem, multiline, placeholder, onChange, ...props }: FieldProps) {
  const [editedSince, setEditedSince] = useState<string | undefined>();
  // A new answer from the API (the problem changes, or goes and comes back on the next submission) shows again.
  useEffect(() => setEditedSince(undefined), [problem]);
  const shown = problem !== undefined && problem !== editedSince ? problem : undefined;
  return (
    <AriaTextField
      {...props}
      className="field"
      isInvalid={shown ? true : props.isInvalid}
      onChange={(value) => {
        if (problem) setEditedSince(problem);
        onChange?.(value);
      }}
    >
      <Label>{label}</Label>
      {multiline ? <TextArea placeholder={placeholder} /> : <Input placeholder={placeholder} />}
      {description && <Text slot="description">{description}</Text>}
      <FieldError>{shown}</FieldError>
    </AriaTextField>
  );
}
