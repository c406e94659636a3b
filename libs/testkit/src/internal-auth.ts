import { parseInternalAuthKey, ServiceTokenSigner, useServiceIdentity, type InternalAuthKeys } from "@study/grpc";

/**
 * Makes this test process sign its gRPC calls as one of a stack's processes (e.g. "gateway" to seed notes in
 * media, "calendar" to ask the gateway's IdentityService), as that process itself would.
 */
export function signCallsAs(keys: InternalAuthKeys, name: string): void {
  const key = keys.privateKeys[name];
  if (!key) throw new Error(`the stack has no process ${name} (it has ${Object.keys(keys.privateKeys).join(", ")})`);
  useServiceIdentity(new ServiceTokenSigner(name, parseInternalAuthKey(key)));
}
