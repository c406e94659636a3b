/** A text field's value of a submitted form ("" when absent or a file). */
export function textOf(form: FormData, name: string): string {
  const value = form.get(name);
  return typeof value === "string" ? value : "";
}
