import { Button, Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from "react-aria-components";

export interface SelectOption<K extends string> {
  key: K;
  label: string;
}

interface SelectFieldProps<K extends string> {
  label: string;
  /** The chosen option; null shows the placeholder. */
  value: K | null;
  options: SelectOption<K>[];
  onChange: (key: K) => void;
  placeholder?: string;
  isRequired?: boolean;
  isDisabled?: boolean;
  className?: string;
}

/** A labelled react-aria Select: a button that opens a list box, keyboard and screen reader included. */
export function SelectField<K extends string>({
  label,
  value,
  options,
  onChange,
  placeholder,
  isRequired,
  isDisabled,
  className,
}: SelectFieldProps<K>) {
  return (
    <Select
      className={`field ${className ?? ""}`}
      value={value}
      onChange={(key) => {
        const option = options.find((candidate) => candidate.key === key);
        if (option) onChange(option.key);
      }}
      placeholder={placeholder}
      isRequired={isRequired}
      isDisabled={isDisabled}
    >
      <Label>{label}</Label>
      <Button className="select-button">
        <SelectValue />
        <span aria-hidden="true">▾</span>
      </Button>
      <Popover className="select-popover">
        <ListBox className="select-list">
          {options.map((option) => (
            <ListBoxItem key={option.key} id={option.key} className="select-option" textValue={option.label}>
              {option.label}
            </ListBoxItem>
          ))}
        </ListBox>
      </Popover>
    </Select>
  );
}
