import { Button, Label, ListBox, ListBoxItem, Popover, Select, SelectValue } from "react-aria-components";

interface FilterSelectProps<K extends string> {
  label: string;
  value: K;
  options: { key: K; label: string }[];
  onChange: (key: K) => void;
}

/** A labelled react-aria Select of a few fixed options (the list's filters and order). */
export function FilterSelect<K extends string>({ label, value, options, onChange }: FilterSelectProps<K>) {
  return (
    <Select
      className="field filter-select"
      value={value}
      onChange={(key) => {
        const option = options.find((candidate) => candidate.key === key);
        if (option) onChange(option.key);
      }}
    >
      <Label>{label}</Label>
      <Button className="select-button">
        <SelectValue />
        <span aria-hidden="true">▾</span>
      </Button>
      <Popover className="select-popover">
        <ListBox className="select-list">
          {options.map((option) => (
            <ListBoxItem key={option.key} id={option.key} className="select-option">
              {option.label}
            </ListBoxItem>
          ))}
        </ListBox>
      </Popover>
    </Select>
  );
}
