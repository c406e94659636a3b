import { useState } from "react";
import {
  type Color,
  ColorField,
  ColorSwatch,
  ColorSwatchPicker,
  ColorSwatchPickerItem,
  FieldError,
  Form,
  Input,
  Label,
  parseColor,
  Text,
} from "react-aria-components";
import { Button, TextField } from "../../components/fields";
import { ErrorMessage } from "../../components/page-state";
import { textOf } from "../../lib/form";
import { problemOf, type Course, type CourseFields } from "./queries";
import "./courses.css";

/** Colours to pick with one press (each has AA contrast against white text and the page). */
const PRESETS = ["#1f5fbf", "#0b7a75", "#2e7d32", "#8a6d00", "#c25400", "#b3261e", "#ad1457", "#6a3fb5"];

/** A course's stored colour as a Color, or null when it has none or it is a colour name (the API accepts both). */
function colorOf(value: string | null | undefined): Color | null {
  if (!value) return null;
  try {
    return parseColor(value);
  } catch {
    return null;
  }
}

/** An optional field's value: null when left blank. */
const optional = (form: FormData, name: string) => textOf(form, name).trim() || null;

interface CourseFormProps {
  /** The course being edited; a new course when absent. */
  course?: Course;
  submitLabel: string;
  pendingLabel: string;
  isPending: boolean;
  error: unknown;
  /**
   * The fields to save, and whether the colour was changed (on edit, an unchanged colour is not sent: a colour name
   * the field cannot show stays as it is).
   */
  onSubmit: (fields: CourseFields, colorChanged: boolean) => void;
}

/** Every field of a course: name (required), code, colour, emoji, professor, semester and description. */
export function CourseForm({ course, submitLabel, pendingLabel, isPending, error, onSubmit }: CourseFormProps) {
  const [color, setColor] = useState<Color | null>(() => colorOf(course?.color));
  const [colorChanged, setColorChanged] = useState(false);
  // The fields changed since the API refused them: their message goes (and with it the field's invalid state, which
  // would otherwise keep the browser from submitting the form again).
  const [edited, setEdited] = useState<{ error: unknown; fields: ReadonlySet<string> }>({ error: undefined, fields: new Set() });
  const markEdited = (field: string) =>
    setEdited((current) => ({ error, fields: new Set(current.error === error ? [...current.fields, field] : [field]) }));
  const problem = (field: string) => (edited.error === error && edited.fields.has(field) ? undefined : problemOf(error, field));
  const changeColor = (next: Color | null) => {
    setColor(next);
    setColorChanged(true);
    markEdited("color");
  };
  const colorProblem = problem("color");
  const unparsedColor = course?.color && !colorOf(course.color) && !colorChanged ? course.color : undefined;
  return (
    <Form
      className="course-form"
      onSubmit={(event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        onSubmit(
          {
            name: textOf(form, "name"),
            code: optional(form, "code"),
            color: color ? color.toString("hex") : null,
            emoji: optional(form, "emoji"),
            professor: optional(form, "professor"),
            semester: optional(form, "semester"),
            description: optional(form, "description"),
          },
          colorChanged,
        );
      }}
    >
      <TextField
        label="Name"
        name="name"
        isRequired
        maxLength={255}
        defaultValue={course?.name}
        problem={problem("name")}
        onChange={() => markEdited("name")}
      />
      <TextField
        label="Code"
        name="code"
        maxLength={50}
        defaultValue={course?.code ?? ""}
        description="As in the timetable, e.g. BIO 101."
        problem={problem("code")}
        onChange={() => markEdited("code")}
      />
      <div className="color-fields">
        <ColorField className="field" value={color} onChange={changeColor} isInvalid={Boolean(colorProblem)}>
          <Label>Colour</Label>
          <div className="color-input">
            <ColorSwatch className="color-preview" color={color ?? "#0000"} aria-hidden="true" />
            <Input />
          </div>
          <Text slot="description">
            {unparsedColor ? `Now “${unparsedColor}”. ` : ""}A hex code such as #1f5fbf, or pick one below. Leave it empty for none.
          </Text>
          <FieldError>{colorProblem}</FieldError>
        </ColorField>
        <ColorSwatchPicker aria-label="Colour presets" className="swatches" value={color ?? "#0000"} onChange={(next) => changeColor(next)}>
          {PRESETS.map((preset) => (
            <ColorSwatchPickerItem key={preset} color={preset} className="swatch">
              <ColorSwatch className="swatch-color" />
            </ColorSwatchPickerItem>
          ))}
        </ColorSwatchPicker>
      </div>
      <TextField
        label="Emoji"
        name="emoji"
        maxLength={16}
        defaultValue={course?.emoji ?? ""}
        description="Shown next to the name, e.g. 🧬."
        problem={problem("emoji")}
        onChange={() => markEdited("emoji")}
      />
      <TextField
        label="Professor"
        name="professor"
        maxLength={255}
        defaultValue={course?.professor ?? ""}
        problem={problem("professor")}
        onChange={() => markEdited("professor")}
      />
      <TextField
        label="Semester"
        name="semester"
        maxLength={100}
        defaultValue={course?.semester ?? ""}
        description="e.g. Autumn 2026."
        problem={problem("semester")}
        onChange={() => markEdited("semester")}
      />
      <TextField
        label="Description"
        name="description"
        multiline
        maxLength={2000}
        defaultValue={course?.description ?? ""}
        problem={problem("description")}
        onChange={() => markEdited("description")}
      />
      {Boolean(error) && <ErrorMessage error={error} />}
      <div className="actions">
        <Button type="submit" isDisabled={isPending}>
          {isPending ? pendingLabel : submitLabel}
        </Button>
      </div>
    </Form>
  );
}
