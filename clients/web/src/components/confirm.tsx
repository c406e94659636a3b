import type { ReactNode } from "react";
import { Dialog, DialogTrigger, Heading, Modal } from "react-aria-components";
import { Button } from "./fields";

interface ConfirmProps {
  /** The button that opens the dialog, e.g. "Delete course". */
  trigger: string;
  /**
   * The trigger's accessible name where several items of a list have the same button: "Delete import “Lecture 3”"
   * for a button reading "Delete" (it starts with the visible text, as speech input needs).
   */
  triggerLabel?: string;
  title: string;
  children: ReactNode;
  /** The confirming button, e.g. "Delete". */
  confirm: string;
  onConfirm: () => void;
  variant?: "danger" | "primary";
  isDisabled?: boolean;
}

/** Asks before something that cannot be undone (a modal dialog: focus stays inside, Escape closes it). */
export function Confirm({ trigger, triggerLabel, title, children, confirm, onConfirm, variant = "danger", isDisabled }: ConfirmProps) {
  return (
    <DialogTrigger>
      <Button variant={variant === "danger" ? "danger" : "secondary"} aria-label={triggerLabel} isDisabled={isDisabled}>
        {trigger}
      </Button>
      <Modal className="modal" isDismissable>
        <Dialog className="dialog" role="alertdialog">
          {({ close }) => (
            <>
              <Heading slot="title">{title}</Heading>
              <div className="dialog-body">{children}</div>
              <div className="actions">
                <Button variant="secondary" onPress={close}>
                  Keep it
                </Button>
                <Button
                  variant={variant}
                  onPress={() => {
                    onConfirm();
                    close();
                  }}
                >
                  {confirm}
                </Button>
              </div>
            </>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  );
}
