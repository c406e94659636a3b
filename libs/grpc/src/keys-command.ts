/**
 * `npm run -s internal-auth-keys`: new internal-auth keys for every process of the catalogue, as environment lines
 * (`<PROCESS>_INTERNAL_AUTH_KEY=…` each, then `INTERNAL_AUTH_PUBLIC_KEYS=…`), for docker compose's `.env` or for
 * creating the Kubernetes Secrets (k8s/README.md). Keys are printed, never written anywhere by this command.
 */
import { processNamesOf } from "@study/platform/catalogue";
import { generateInternalAuthKeys } from "./internal-auth";

const names = processNamesOf();
const keys = generateInternalAuthKeys(names);
const variable = (name: string) => `${name.toUpperCase().replaceAll("-", "_")}_INTERNAL_AUTH_KEY`;
process.stdout.write(
  `${names.map((name) => `${variable(name)}=${keys.privateKeys[name]}`).join("\n")}\nINTERNAL_AUTH_PUBLIC_KEYS=${keys.publicKeys}\n`,
);
