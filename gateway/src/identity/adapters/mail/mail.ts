import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@study/platform";
import { createTransport, type Transporter } from "nodemailer";

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Port: sends one e-mail. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

/** Delivers over SMTP (SMTP_URL, e.g. smtps://user:pass@smtp.example.com:465). */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transport = createTransport(smtpUrl);
  }

  async send(message: MailMessage): Promise<void> {
    await this.transport.sendMail({ from: this.from, ...message });
  }
}

/**
 * Development default: each mail is written as an .eml file into a folder (open it with any mail client) and
 * announced in the log — nothing leaves the machine.
 */
export class OutboxFolderMailer implements Mailer {
  private readonly transport = createTransport({ streamTransport: true, buffer: true, newline: "unix" });

  constructor(
    private readonly folder: string,
    private readonly from: string,
    private readonly logger: Logger,
  ) {}

  async send(message: MailMessage): Promise<void> {
    const { message: raw } = (await this.transport.sendMail({ from: this.from, ...message })) as { message: Buffer };
    mkdirSync(this.folder, { recursive: true });
    const file = join(this.folder, `${new Date().toISOString().replace(/[:.]/g, "-")}-${message.to.replace(/[^\w.@-]/g, "_")}.eml`);
    writeFileSync(file, raw);
    this.logger.info({ to: message.to, subject: message.subject, file }, "mail written to the outbox folder");
  }
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

function linkMail(to: string, subject: string, greeting: string, lines: string[], action: string, link: string): MailMessage {
  return {
    to,
    subject,
    text: [greeting, "", ...lines, "", `${action}: ${link}`, "", "If you did not ask for this, ignore this e-mail."].join("\n"),
    html: [
      `<p>${escapeHtml(greeting)}</p>`,
      ...lines.map((line) => `<p>${escapeHtml(line)}</p>`),
      `<p><a href="${escapeHtml(link)}">${escapeHtml(action)}</a></p>`,
      "<p>If you did not ask for this, ignore this e-mail.</p>",
    ].join("\n"),
  };
}

/** `validFor` reads like "24 hours". */
export const verificationMail = (to: string, name: string, link: string, validFor: string) =>
  linkMail(
    to,
    "Confirm your e-mail address",
    `Hello ${name},`,
    [`Please confirm your e-mail address. The link is valid for ${validFor} and works once.`],
    "Confirm my e-mail address",
    link,
  );

export const passwordResetMail = (to: string, name: string, link: string, validFor: string) =>
  linkMail(
    to,
    "Reset your password",
    `Hello ${name},`,
    [`Someone asked to reset the password of your Study account. The link is valid for ${validFor} and works once.`],
    "Choose a new password",
    link,
  );

/** SMTP when SMTP_URL is set, otherwise .eml files in MAIL_OUTBOX_DIR. */
export function mailerFor(settings: { SMTP_URL?: string; MAIL_FROM: string; MAIL_OUTBOX_DIR: string }, logger: Logger): Mailer {
  return settings.SMTP_URL
    ? new SmtpMailer(settings.SMTP_URL, settings.MAIL_FROM)
    : new OutboxFolderMailer(settings.MAIL_OUTBOX_DIR, settings.MAIL_FROM, logger);
}
