import { Dialog, DialogTrigger, Heading, Modal } from "react-aria-components";
import type { ReactNode } from "react";
import { Button } from "../../components/fields";

interface ConfirmDeleteProps {
  /** The accessible name of the opening button, naming its item ("Delete import “Lecture 3”"). */
  label: string;
  title: string;
  children: ReactNode;
  onConfirm: () => void;
  isDisabled?: boolean;
}

/**
 * components/confirm's dialog for a list where several items have a Delete button: the button reads "Delete" but
 * is named after its item, so a screen reader's list of buttons tells them apart.
 */
export function ConfirmDelete({ label, title, children, onConfirm, isDisabled }: ConfirmDeleteProps) {
  return (
    <DialogTrigger>
      <Button variant="danger" aria-label={label} isDisabled={isDisabled}>
        Delete
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
                  variant="danger"
                  onPress={() => {
                    onConfirm();
                    close();
                  }}
                >
                  Delete
                </Button>
              </div>
            </>
          )}
        </Dialog>
      </Modal>
    </DialogTrigger>
  );
}
