import type { AddressInfo } from "node:net";
import type { ParsedMail } from "mailparser";

export interface ReceivedMail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** Every http(s) link of the text part. */
  links: string[];
}

export interface LocalSmtpServer {
  /** `smtp://127.0.0.1:<port>` — plain SMTP on loopback, no authentication. */
  url: string;
  mails: ReceivedMail[];
  /** Resolves with the first mail to `address` (waiting for it if needed). */
  nextMailTo(address: string, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
}

function addresses(mail: ParsedMail): string[] {
  const to = Array.isArray(mail.to) ? mail.to : mail.to ? [mail.to] : [];
  return to.flatMap((group) => group.value.map((entry) => (entry.address ?? "").toLowerCase()));
}

/** A real SMTP server on loopback (npm `smtp-server`) that keeps every mail it receives, parsed. */
export async function startSmtpServer(): Promise<LocalSmtpServer> {
  // Loaded here: every test file imports the test kit, few of them receive mail.
  const [{ simpleParser }, { SMTPServer }] = await Promise.all([import("mailparser"), import("smtp-server")]);
  const mails: ReceivedMail[] = [];
  const listeners = new Set<() => void>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, done) {
      simpleParser(stream).then(
        (mail) => {
          const text = mail.text ?? "";
          mails.push({
            to: addresses(mail),
            subject: mail.subject ?? "",
            text,
            html: typeof mail.html === "string" ? mail.html : "",
            links: text.match(/https?:\/\/\S+/g) ?? [],
          });
          for (const listener of listeners) listener();
          done();
        },
        (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
      );
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    nextMailTo(address, timeoutMs = 10_000) {
      const wanted = address.toLowerCase();
      const find = () => mails.find((mail) => mail.to.includes(wanted));
      return new Promise((resolve, reject) => {
        const found = find();
        if (found) return resolve(found);
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`no mail to ${address} within ${timeoutMs} ms`));
        }, timeoutMs);
        const check = () => {
          const mail = find();
          if (!mail) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve(mail);
        };
        listeners.add(check);
      });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
