/**
 * Operator tool for a consumer's dead letters:
 *
 *   node libs/events/dist/cli/dead-letters.js list <consumer> [--exchange study.events]
 *   node libs/events/dist/cli/dead-letters.js replay <consumer> [--exchange study.events]
 *
 * The broker is RABBITMQ_URL. `list` prints one JSON line per dead letter (without removing any); `replay`
 * moves them all back to the consumer's queue and prints how many. Bad arguments: usage on stderr, exit 2.
 */
import { amqpUrl, loadConfig, runMain } from "@study/platform";
import { connect } from "amqplib";
import { z } from "zod";
import { queueNames } from "../consumer";
import { listDeadLetters, replayDeadLetters } from "../dead-letters";
import { DEFAULT_EXCHANGE } from "../publisher";

export const USAGE = `usage: dead-letters <list|replay> <consumer> [--exchange <name>]  (default exchange ${DEFAULT_EXCHANGE}; broker from RABBITMQ_URL)`;

export interface DeadLettersCommand {
  action: "list" | "replay";
  consumer: string;
  exchange: string;
}

/** Parses the command line (without `node` and the script); undefined when it is not valid. */
export function parseArguments(argv: string[]): DeadLettersCommand | undefined {
  const [action, consumer, ...rest] = argv;
  if (action !== "list" && action !== "replay") return undefined;
  if (!consumer || consumer.startsWith("-")) return undefined;
  let exchange = DEFAULT_EXCHANGE;
  for (let i = 0; i < rest.length; i++) {
    const argument = rest[i];
    const value = argument === "--exchange" ? rest[++i] : argument.startsWith("--exchange=") ? argument.slice("--exchange=".length) : undefined;
    if (!value || value.startsWith("-")) return undefined;
    exchange = value;
  }
  return { action, consumer, exchange };
}

/** The tool's one setting. */
export const deadLettersConfigSchema = z.object({
  RABBITMQ_URL: amqpUrl(),
});

export async function runDeadLetters(command: DeadLettersCommand, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { RABBITMQ_URL } = loadConfig(deadLettersConfigSchema, env);
  const connection = await connect(RABBITMQ_URL);
  try {
    // A missing queue would close the channel with a 404; say plainly what is missing instead.
    const { dead } = queueNames(command.exchange, command.consumer);
    const probe = await connection.createChannel();
    probe.on("error", () => undefined);
    const exists = await probe.checkQueue(dead).then(
      () => true,
      () => false,
    );
    if (exists) await probe.close();
    if (!exists) {
      process.stderr.write(`No dead-letter queue ${dead}: is "${command.consumer}" a consumer of exchange ${command.exchange}?\n`);
      process.exitCode = 1;
      return;
    }

    if (command.action === "list") {
      for (const letter of await listDeadLetters(connection, command.exchange, command.consumer)) {
        process.stdout.write(`${JSON.stringify(letter)}\n`);
      }
    } else {
      const replayed = await replayDeadLetters(connection, command.exchange, command.consumer);
      process.stdout.write(`${replayed}\n`);
    }
  } finally {
    await connection.close();
  }
}

if (require.main === module) {
  const command = parseArguments(process.argv.slice(2));
  if (!command) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  runMain(() => runDeadLetters(command));
}
